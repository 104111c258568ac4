// Bootstrap for worker threads: loads the actor module named in
// workerData.entry. A TypeScript entry (running from the sources) first
// registers the TypeScript loader in this thread (loader hooks are per
// thread); a compiled one (dist/, bin/build.mjs) needs none. Used for the
// history worker and the reader worker.
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
