// Config problems on the command line: every command that reads the bridge
// home's config.json (ingest, serve, reindex, status, settings) names each
// problem on stderr with its file, field and reason. Problems never stop a
// command: an invalid value leaves the last good one (or the next layer, or
// the default) in force, and a warning names something that is ignored.

import type { ConfigProblem } from '../../protocols/settings.ts';
import { ConfigFile } from '../config/config-file.ts';
import { LIMITS } from '../config/limits.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { problemText } from '../config/settings.ts';

/** `error: <file>: <field>: <reason>`, saying what stays in force. */
export function problemLine(problem: ConfigProblem): string {
  const tail = problem.severity === 'error' && problem.file !== 'environment' ? '; the last good or default value stays in force' : '';
  return `${problem.severity}: ${problemText(problem)}${tail}`;
}

/** One write for the whole report, so a reader of the pipe gets its lines together. */
function write(problems: readonly ConfigProblem[]): void {
  if (problems.length > 0) process.stderr.write(problems.map((problem) => `agent-bridge: config ${problemLine(problem)}\n`).join(''));
}

/** Validate the bridge home's config.json now and print its problems on stderr; returns them. */
export function reportConfigProblems(paths: HistoryPaths): readonly ConfigProblem[] {
  const problems = new ConfigFile(paths.configJson, 'global').read().problems;
  write(problems);
  return problems;
}

/**
 * For long-running commands (serve): report the config's problems now, then
 * again whenever the file changes them (one stat per LIMITS.configPollMs).
 * Returns a function that stops watching.
 */
export function watchConfigProblems(paths: HistoryPaths): () => void {
  const file = new ConfigFile(paths.configJson, 'global');
  let last = file.read();
  write(last.problems);
  const timer = setInterval(() => {
    const now = file.read();
    if (now === last) return;
    const before = new Set(last.problems.map(problemLine));
    const fresh = now.problems.filter((p) => !before.has(problemLine(p)));
    if (fresh.length > 0) write(fresh);
    else if (now.problems.length === 0 && last.problems.length > 0) process.stderr.write(`agent-bridge: config: ${paths.configJson} has no problems now\n`);
    last = now;
  }, LIMITS.configPollMs);
  timer.unref();
  return () => clearInterval(timer);
}
