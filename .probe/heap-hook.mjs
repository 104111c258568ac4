// node --import ./.probe/heap-hook.mjs bin/agent-bridge ...; kill -USR2 <pid> writes heap snapshots of every thread.
import { writeHeapSnapshot } from 'node:v8';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
const workers = [];
process.on('worker', (w) => workers.push(w));
const dir = process.env.PROBE_DIR ?? '/work/idle/heaps';
let n = 0;
process.on('SIGUSR2', async () => {
  const k = n++;
  const t = Date.now();
  writeHeapSnapshot(`${dir}/s${k}-main.heapsnapshot`);
  for (const w of workers) {
    try {
      const stream = await w.getHeapSnapshot();
      await pipeline(stream, createWriteStream(`${dir}/s${k}-t${w.threadId}.heapsnapshot`));
    } catch (e) { process.stderr.write(`probe: thread ${w.threadId}: ${e}\n`); }
  }
  process.stderr.write(`probe: snapshot ${k} of ${workers.length + 1} threads in ${Date.now() - t} ms\n`);
});
