// bench/idle: what an idle `serve` costs. Starts `agent-bridge serve` of one
// or more checkouts on a home that is already captured (`ingest --once`
// first), waits for it to catch up, then reads the process's CPU time
// (utime + stime from /proc/<pid>/stat, all threads) over a window and
// prints it as a percentage of one core. Give several `--repo` paths (for
// example a worktree of the previous commit) to get their figures in the
// same run, one after the other, on the same home; the first is the baseline
// of the printed ratio. Not part of `npm test`; Linux only.
//
//   node --import tsx bench/idle.ts --home <captured home> [--bridge-home DIR] [--repo DIR]... [--warm 90] [--seconds 60] [--no-scrub]
//
// --bridge-home: the agent-bridge home that holds the capture (default
// <home>/.agent-bridge), as bench/scale.ts keeps its homes beside the corpora.

import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { idleCpuPercent } from './lib/idle-cpu.ts';

const { values } = parseArgs({
  options: {
    home: { type: 'string' },
    'bridge-home': { type: 'string' },
    repo: { type: 'string', multiple: true },
    warm: { type: 'string', default: '90' },
    seconds: { type: 'string', default: '60' },
    'no-scrub': { type: 'boolean', default: false },
  },
});
if (values.home === undefined) throw new Error('--home <captured home> is required');
const home = resolve(values.home);
const repos = (values.repo ?? [process.cwd()]).map((r) => resolve(r));

function measure(repo: string): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  for (const key of ['AGENT_BRIDGE_HOME', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB']) delete env[key];
  if (values['bridge-home'] !== undefined) env.AGENT_BRIDGE_HOME = resolve(values['bridge-home']);
  return idleCpuPercent({ repo, env, warmMs: Number(values.warm) * 1000, windowMs: Number(values.seconds) * 1000, noScrub: values['no-scrub'] === true });
}

const figures: number[] = [];
for (const repo of repos) {
  const percent = await measure(repo);
  figures.push(percent);
  const base = figures[0] as number;
  console.log(`${repo}: ${percent.toFixed(2)} % of a core over ${values.seconds} s idle (after ${values.warm} s)${figures.length > 1 ? `, ${(percent / base).toFixed(2)} × the first` : ''}`);
}
