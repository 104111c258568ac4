// Usage: node --import tsx bench/ingest.ts [--corpus /tmp/bench-corpus-1g] [--bytes 1GiB] [--huge-line-mb 100]
//          [--huge-file-mb 400] [--work /tmp/bench-ingest-work] [--runs baseline,max,baseline,spec]
//          [--variants blob,fts,writer,writer-nofts] [--spec-window-s 1200] [--parsers N] [--skip-dbstat] [--cpu-prof DIR]
//
// Ingestion benchmark (issue 2, section 8). Generates the corpus once with
// ../shared/fixtures/make-corpus.mjs (reused when its manifest is there; it
// lives outside the repository and is never committed), then runs, one heavy
// thing at a time, each in its own child process:
//   baseline  raw 64 KiB blob inserts + FTS5 inserts of the same derived text,
//             single thread, parsing done before the clock (bench/lib/store-variants.ts);
//   max/spec  a whole `ingest --once` through HistoryService on a fresh bridge
//             home (bench/lib/ingest-child.ts), measuring throughput, every
//             writer batch, the driving thread's event-loop delay, peak RSS.
// After the pace-max run, where history.db's bytes go: dbstat by table and
// index with bytes per source byte (bench/lib/store-breakdown.ts; --skip-dbstat
// leaves it out; bench/store-size.ts prints it for any store).
// Baselines run before and after the pace-max run; the ratio uses their mean,
// because the machine is shared and noisy. --variants adds profile variants
// to the first baseline child. A pace-spec run longer than --spec-window-s is
// stopped there and its throughput extrapolated from what it captured.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Pace } from '../protocols/service.ts';
import { REPO, ensureCorpus, type CorpusSpec } from './lib/corpus.ts';
import { details, formatTable, rows, type IngestOutcome } from './lib/report.ts';
import type { IngestRunResult, StoreRunResult } from './lib/results.ts';
import { storeFacts } from './lib/store-facts.ts';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: '/tmp/bench-corpus-1g' },
    bytes: { type: 'string', default: '1GiB' },
    'huge-line-mb': { type: 'string', default: '100' },
    'huge-file-mb': { type: 'string', default: '400' },
    work: { type: 'string', default: '/tmp/bench-ingest-work' },
    runs: { type: 'string', default: 'baseline,max,baseline,spec' },
    variants: { type: 'string', default: '' },
    'spec-window-s': { type: 'string', default: '1200' },
    parsers: { type: 'string' },
    'skip-dbstat': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
  strict: true,
});

const command = `node --import tsx bench/ingest.ts ${process.argv.slice(2).join(' ')}`.trim();
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const spec: CorpusSpec = {
  dir: values.corpus as string,
  bytes: values.bytes as string,
  hugeLineMb: Number(values['huge-line-mb']),
  hugeFileMb: Number(values['huge-file-mb']),
};
const work = values.work as string;
const runs = (values.runs as string).split(',').map((r) => r.trim()).filter((r) => r !== '');
for (const r of runs) if (!['baseline', 'max', 'spec'].includes(r)) throw new Error(`--runs: unknown run "${r}" (baseline, max, spec)`);

mkdirSync(work, { recursive: true });
const corpus = ensureCorpus(spec, log);
log(`corpus ${spec.dir}: ${(corpus.manifestBytes / 2 ** 20).toFixed(0)} MiB in its manifest${corpus.generated ? ' (generated now)' : ' (reused)'}; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);

function child(script: string, args: string[], extraEnv: Record<string, string> = {}): void {
  const nodeArgs = ['--import', 'tsx'];
  if (values['cpu-prof'] !== undefined) nodeArgs.push('--cpu-prof', '--cpu-prof-dir', values['cpu-prof']);
  const run = spawnSync(process.execPath, [...nodeArgs, join(REPO, script), ...args], {
    cwd: REPO,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, ...extraEnv },
  });
  if (run.status !== 0) throw new Error(`${script} failed with status ${run.status}`);
}

const stores: StoreRunResult[] = [];
const ingests = new Map<Pace, IngestOutcome>();
let baselineIndex = 0;
for (const run of runs) {
  const out = join(work, `${run}-${baselineIndex}.json`);
  if (run === 'baseline') {
    const variants = ['baseline', ...(baselineIndex === 0 && values.variants !== '' ? (values.variants as string).split(',') : [])];
    log(`baseline ${baselineIndex + 1}: variants ${variants.join(', ')}`);
    child('bench/lib/store-child.ts', ['--corpus', spec.dir, '--work', work, '--out', out, '--variants', variants.join(',')]);
    stores.push(JSON.parse(readFileSync(out, 'utf8')) as StoreRunResult);
    baselineIndex++;
    continue;
  }
  const pace = run as Pace;
  const home = join(work, `home-${pace}`);
  rmSync(home, { recursive: true, force: true });
  log(`ingest --once --pace ${pace} into ${home}`);
  const env: Record<string, string> = values.parsers !== undefined ? { AGENT_BRIDGE_HISTORY_PARSERS: values.parsers } : {};
  const window = pace === 'spec' ? ['--window-s', values['spec-window-s'] as string] : [];
  child('bench/lib/ingest-child.ts', ['--corpus', spec.dir, '--home', home, '--pace', pace, '--out', out, ...window], env);
  const result = JSON.parse(readFileSync(out, 'utf8')) as IngestRunResult;
  const facts = storeFacts(join(home, 'history.db'), { dbstat: values['skip-dbstat'] !== true && pace === 'max' });
  ingests.set(pace, { run: result, facts });
}

const table = formatTable(rows(ingests.get('max') ?? null, ingests.get('spec') ?? null, stores));
const extra = details(ingests.get('max') ?? null, stores);
const report = [
  `$ ${command}`,
  `corpus: ${spec.dir} (node ../shared/fixtures/make-corpus.mjs <dir> --bytes ${spec.bytes} --huge-line-mb ${spec.hugeLineMb} --huge-file-mb ${spec.hugeFileMb}); OpenCode's opencode.db is left out of both sides (XDG_DATA_HOME points elsewhere): source bytes are the Claude + Codex files captured`,
  `machine: load ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end`,
  table,
  ...extra.map((l) => `  ${l}`),
].join('\n');
process.stdout.write(`${report}\n`);
const saved = join(work, `results-${Date.now()}.json`);
writeFileSync(saved, JSON.stringify({ command, report, stores, ingests: Object.fromEntries(ingests) }));
log(`raw results: ${saved}`);
