// `node --import <this file>`: every module specifier the process resolves is
// appended, one per line, to the file named by RECORD_IMPORTS_TO (the hooks
// run in their own thread, so the log is written from there).
import { register } from 'node:module';

register(new URL('./record-imports-hooks.mjs', import.meta.url), { data: { to: process.env.RECORD_IMPORTS_TO } });
