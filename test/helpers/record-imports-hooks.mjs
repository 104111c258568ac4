// The resolve hook of record-imports.mjs.
import { appendFileSync } from 'node:fs';

let to;

export function initialize(data) {
  to = data.to;
}

export async function resolve(specifier, context, nextResolve) {
  if (to !== undefined) appendFileSync(to, `${specifier}\n`);
  return nextResolve(specifier, context);
}
