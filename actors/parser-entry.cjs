// piscina loads this file in each parser thread, and tries require() before
// import(). It is CommonJS on purpose: require() of the ESM entry (require(esm),
// on by default since Node 20.19, meets parser-entry.mjs's top-level await)
// can abort the whole process in Node 20.20 with a V8 fatal error ("IsGraphAsync
// must be used on an instantiated module"; seen once in CI, in a parser thread
// starting). The ESM entry is imported on the thread's first task instead.
'use strict';

/** @type {Promise<(task: unknown) => unknown> | null} */
let handler = null;

module.exports = async function parse(task) {
  handler ??= import('./parser-entry.mjs').then((entry) => entry.default);
  return (await handler)(task);
};
