// Bootstrap for worker threads: registers the TypeScript loader in this
// thread (loader hooks are per thread), then loads the actor module named in
// workerData.entry. Used for the history worker and the reader worker.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
