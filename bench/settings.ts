// What a settings lookup costs the broker's thread and the history worker.
// resolveSettings is meant to be called per request (issue 12: "cheap:
// signature checks"), and SettingsWatcher.read() runs before every capture
// batch and migration chunk. Both are measured against the same-run baseline
// of one statSync of the config file, the least any reload-on-change reader
// must do.
//   node --import tsx bench/settings.ts [--calls 20000] [--runs 5]
// Prints µs per call (worst run) and the ratio to one stat.

import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SettingsResolver } from '../src/config/resolve-settings.ts';
import { SettingsWatcher } from '../src/config/settings.ts';
import { tempDir } from '../test/helpers/home.ts';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '20000' }, runs: { type: 'string', default: '5' } } });
const calls = Number(values.calls);
const runs = Number(values.runs);

// A project as the broker sees one: a session in a linked worktree's subfolder, both files present.
const root = tempDir('abh-bench-settings-');
const home = join(root, 'home');
const main = join(root, 'game');
mkdirSync(join(home, '.agent-bridge'), { recursive: true });
mkdirSync(main);
const git = (...args: string[]): void => void execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...args], { cwd: main, stdio: 'ignore' });
git('init', '-q');
git('commit', '-q', '--allow-empty', '-m', 'init');
git('worktree', 'add', '-q', join(root, 'feature'), '-b', 'feature');
const session = join(root, 'feature', 'src', 'deep');
mkdirSync(session, { recursive: true });
const globalFile = join(home, '.agent-bridge', 'config.json');
writeFileSync(globalFile, JSON.stringify({ codexModel: 'gpt-5', effort: 'medium', lingerSec: 120, codex: { delivery: 'hooks' }, resourceSlots: { gpu: 1 }, history: { ingest: true } }));
mkdirSync(join(main, '.agent-bridge'));
writeFileSync(join(main, '.agent-bridge', 'config.json'), JSON.stringify({ codexModel: 'gpt-6.1-sol', effort: { codex: 'high' }, native_subagents: 4, opencode: { opencodeModel: 'provider/model' } }));

function perCall(fn: () => void): number {
  for (let i = 0; i < 1000; i += 1) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i += 1) fn();
  return Number(process.hrtime.bigint() - start) / calls / 1000;
}

const resolver = new SettingsResolver({ env: { HOME: home } });
const watcher = new SettingsWatcher(globalFile);
const worst = { stat: 0, resolve: 0, watcher: 0 };
for (let run = 0; run < runs; run += 1) {
  const stat = perCall(() => statSync(globalFile));
  const resolve = perCall(() => resolver.resolve(session, 'codex'));
  const read = perCall(() => watcher.read());
  console.log(`run ${run + 1}: stat ${stat.toFixed(2)} µs, resolveSettings ${resolve.toFixed(2)} µs (${(resolve / stat).toFixed(1)}x), SettingsWatcher.read ${read.toFixed(2)} µs (${(read / stat).toFixed(1)}x)`);
  worst.stat = Math.max(worst.stat, stat);
  worst.resolve = Math.max(worst.resolve, resolve);
  worst.watcher = Math.max(worst.watcher, read);
}
console.log(`worst of ${runs}: resolveSettings ${worst.resolve.toFixed(2)} µs/call, SettingsWatcher.read ${worst.watcher.toFixed(2)} µs/call, one stat ${worst.stat.toFixed(2)} µs`);
