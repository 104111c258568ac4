// Child process of bench/ingest.ts: derive the corpus once (off the clock),
// then run the requested single-thread insert variants on fresh databases.
// Usage: node --import tsx bench/lib/store-child.ts --corpus DIR --work DIR --out FILE --variants baseline[,writer,...]

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { capturedFiles } from './corpus.ts';
import { deriveAll } from './derive.ts';
import type { StoreRunResult } from './results.ts';
import { runVariant, VARIANTS, type Variant, type VariantResult } from './store-variants.ts';

const { values } = parseArgs({
  options: { corpus: { type: 'string' }, work: { type: 'string' }, out: { type: 'string' }, variants: { type: 'string' } },
  strict: true,
});
if (values.corpus === undefined || values.work === undefined || values.out === undefined) throw new Error('--corpus, --work and --out are required');
const variants = (values.variants ?? 'baseline').split(',').map((v) => v.trim()) as Variant[];
for (const v of variants) if (!(VARIANTS as readonly string[]).includes(v)) throw new Error(`unknown variant ${v} (${VARIANTS.join(', ')})`);

const files = await capturedFiles(values.corpus);
const t0 = performance.now();
const derived = deriveAll(files);
const deriveSeconds = (performance.now() - t0) / 1000;
process.stderr.write(
  `  derived ${files.length} files: ${derived.chunks.length} chunks, ${derived.documents} documents, ${(derived.rawBytes / 2 ** 20).toFixed(0)} MiB in ${deriveSeconds.toFixed(1)} s (parse ${(derived.parseMs / 1000).toFixed(1)} s)\n`,
);

const results: VariantResult[] = [];
for (const variant of variants) {
  const result = runVariant(variant, derived.chunks, join(values.work, `variant-${variant}.db`));
  process.stderr.write(`  ${variant}: ${(result.rawBytes / 2 ** 20 / result.seconds).toFixed(1)} MiB/s, ${result.seconds.toFixed(1)} s (cpu ${result.cpuSeconds.toFixed(1)} s), batch p99 ${result.batches.p99.toFixed(1)} ms\n`);
  results.push(result);
}

const out: StoreRunResult = {
    files: files.length,
    chunks: derived.chunks.length,
    rawBytes: derived.rawBytes,
    documents: derived.documents,
    textChars: derived.textChars,
    parseMs: derived.parseMs,
    readMs: derived.readMs,
    deriveSeconds,
  results,
};
writeFileSync(values.out, JSON.stringify(out));
