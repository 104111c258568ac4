// Usage: node --import tsx bench/profile-summary.ts <dir-or-.cpuprofile>... [--top 25] [--after SECONDS]
//
// Summarises V8 CPU profiles (from `--cpu-prof`, one file per thread, e.g.
// `node --import tsx bench/ingest.ts --runs max --cpu-prof DIR`): per thread,
// its sampled time, then self time by function and by source file. Native
// work (SQLite inside better-sqlite3, JSON.parse, hashing) is attributed to
// the JavaScript function that called it. `--after` counts only the samples
// taken that long after the thread's profile began (an idle service without
// its start).

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '25' }, after: { type: 'string', default: '0' } }, allowPositionals: true, strict: true });
const top = Number(values.top);
const afterUs = Number(values.after) * 1_000_000;
const files = positionals.flatMap((p) => (statSync(p).isDirectory() ? readdirSync(p).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(p, f)) : [p]));

const short = (url: string): string => url.replace(/^file:\/\/\/.*?\/(node_modules|src|actors|protocols|bench)\//, '$1/').replace(/\?.*$/, '');

for (const file of files.sort()) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let at = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at >= afterUs) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const byFunction = new Map<string, number>();
  const byUrl = new Map<string, number>();
  let busy = 0;
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id) as ProfileNode;
    const { functionName, url, lineNumber } = node.callFrame;
    total += us;
    if (functionName === '(idle)' || functionName === '(program)') continue;
    busy += us;
    const key = `${functionName || '(anonymous)'} ${short(url)}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const u = url === '' ? `(${functionName})` : short(url);
    byUrl.set(u, (byUrl.get(u) ?? 0) + us);
  }
  const ms = (us: number): string => (us / 1000).toFixed(0).padStart(7);
  console.log(`\n== ${file}: ${ms(total)} ms sampled, ${ms(busy)} ms busy`);
  for (const [k, v] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${ms(v)} ms  ${k}`);
  console.log('  -- by file');
  for (const [k, v] of [...byUrl].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${ms(v)} ms  ${k}`);
}
