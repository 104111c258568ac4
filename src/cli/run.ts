// The program: bin/agent-bridge imports this (compiled from dist/, or the
// source through tsx) and the exit code becomes the process's.
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));
