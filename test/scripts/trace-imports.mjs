// `node --import <this file> …`: every module the process resolves, in every
// thread, appended to the file TRACE_IMPORTS_TO names (trace-hooks.mjs).
import { register } from 'node:module';

register('./trace-hooks.mjs', import.meta.url, { data: { file: process.env.TRACE_IMPORTS_TO } });
