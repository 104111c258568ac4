// parser-entry.cjs (the file piscina loads) imports this in each parser thread:
// it re-exports the parser actor's handler. In dist/ (bin/build.mjs) the
// compiled actor sits beside this file; from the sources, the thread first
// registers the TypeScript loader (loader hooks are per thread).
import { existsSync } from 'node:fs';

const compiled = new URL('./parser-actor.js', import.meta.url);
let actor;
if (existsSync(compiled)) {
  actor = await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  actor = await import('./parser-actor.ts');
}
export default actor.default;
