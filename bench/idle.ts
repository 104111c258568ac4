// bench/idle: what an idle `serve` costs. Starts `agent-bridge serve` of one
// or more checkouts on a home that is already captured (`ingest --once`
// first), waits for it to catch up, then reads the process's CPU time
// (utime + stime, all threads, from /proc) and its voluntary context
// switches over a window, and prints them as a percentage of one core and
// switches a second. Give several `--repo` paths (for example a worktree of
// the previous commit) to get their figures in the same run; the first is the
// baseline of the printed ratio. Not part of `npm test`; Linux only.
//
//   node --import tsx bench/idle.ts --home <captured home> [--bridge-home DIR] [--repo DIR]...
//        [--warm 90] [--seconds 60] [--no-scrub] [--no-mirrors] [--together --copies DIR]
//
// --bridge-home: the agent-bridge home that holds the capture (default
//   <home>/.agent-bridge), as bench/scale.ts keeps its homes beside the corpora.
// --no-mirrors: AGENT_BRIDGE_HISTORY_MIRRORS=off. A generated corpus's project
//   folders do not exist, so its mirrors are built under the home, which is work
//   of its own, not idling.
// --together: every checkout at once, the first on the bridge home and each
//   other on a copy of it made under --copies (the home without its
//   project-mirrors/), so that all share the machine's noise. One after the
//   other, two runs of the same code differed by 20 % on this VM.

import { cpSync, mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { idleTogether, type IdleFigures, type IdleOptions } from './lib/idle-cpu.ts';

const { values } = parseArgs({
  options: {
    home: { type: 'string' },
    'bridge-home': { type: 'string' },
    repo: { type: 'string', multiple: true },
    warm: { type: 'string', default: '90' },
    seconds: { type: 'string', default: '60' },
    'no-scrub': { type: 'boolean', default: false },
    'no-mirrors': { type: 'boolean', default: false },
    together: { type: 'boolean', default: false },
    copies: { type: 'string' },
  },
});
if (values.home === undefined) throw new Error('--home <captured home> is required');
if (values.together && values.copies === undefined) throw new Error('--together needs --copies DIR (room for a copy of the bridge home per extra --repo)');
const home = resolve(values.home);
const bridgeHome = resolve(values['bridge-home'] ?? join(home, '.agent-bridge'));
const repos = (values.repo ?? [process.cwd()]).map((r) => resolve(r));

function options(repo: string, homeOfStore: string): IdleOptions {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, AGENT_BRIDGE_HOME: homeOfStore };
  for (const key of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB']) delete env[key];
  if (values['no-mirrors']) env.AGENT_BRIDGE_HISTORY_MIRRORS = 'off';
  return { repo, env, warmMs: Number(values.warm) * 1000, windowMs: Number(values.seconds) * 1000, noScrub: values['no-scrub'] };
}

/** A copy of the bridge home for the i-th checkout (the first uses the home itself). */
function homeFor(i: number): string {
  if (!values.together || i === 0) return bridgeHome;
  const copy = resolve(values.copies as string, `bridge-home-${i}`);
  mkdirSync(copy, { recursive: true });
  cpSync(bridgeHome, copy, { recursive: true, filter: (path) => !relative(bridgeHome, path).startsWith('project-mirrors') });
  return copy;
}

const runs: IdleOptions[] = repos.map((repo, i) => options(repo, homeFor(i)));
const figures: IdleFigures[] = [];
if (values.together) figures.push(...(await idleTogether(runs)));
else for (const run of runs) figures.push(...(await idleTogether([run])));
const base = figures[0]?.percent ?? 0;
for (const [i, f] of figures.entries()) {
  const ratio = i > 0 ? `, ${(f.percent / base).toFixed(2)} × the first` : '';
  console.log(`${repos[i]}: ${f.percent.toFixed(2)} % of a core, ${f.switchesPerSecond.toFixed(0)} context switches a second, over ${values.seconds} s idle (after ${values.warm} s${values.together ? ', all at once' : ''})${ratio}`);
}
