// Module resolution tracer (registered with module.register): every resolved
// URL, reported over a MessagePort (`data.port`) or appended, a line each, to
// a file (`data.file`: the hooks run in a thread of their own, and a file is
// complete even when the process exits at once). Hooks registered from a
// script do not apply to worker threads (Node 20), so main-thread-probe.ts
// sees exactly what its main thread loaded; a --import preload
// (trace-imports.mjs), which worker threads inherit, registers them in every
// thread.
import { appendFileSync } from 'node:fs';

let port;
let file;
export async function initialize(data) {
  port = data.port;
  file = data.file;
}
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  port?.postMessage(result.url);
  if (file !== undefined) appendFileSync(file, `${result.url}\n`);
  return result;
}
