// Small Codex rollouts and Claude transcripts written straight into a test
// home, and what the store holds for them (read-only, from history.db), for
// tests that move, edit and rewrite source files between captures.

import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawnCli } from './home.ts';
import type { Store } from './store.ts';
import { openStore, withStore } from './store.ts';

export function codexLine(text: string, second = 0): string {
  const at = new Date(Date.UTC(2026, 0, 2, 10, 0, second % 60)).toISOString();
  return `${JSON.stringify({ timestamp: at, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } })}\n`;
}

/** The path of a new rollout of a fresh thread under `<home>/.codex/<folder>`. */
export function rolloutPath(home: string, folder = 'sessions/2026/01/02'): { path: string; name: string; thread: string } {
  const thread = randomUUID();
  const name = `rollout-2026-01-02T10-00-00-${thread}.jsonl`;
  const path = join(home, '.codex', folder, name);
  mkdirSync(dirname(path), { recursive: true });
  return { path, name, thread };
}

export function claudeLine(session: string, text: string, cwd = '/work/edit-project'): string {
  return `${JSON.stringify({ type: 'user', message: { role: 'user', content: text }, cwd, sessionId: session, timestamp: '2026-11-01T10:00:00.000Z', uuid: randomUUID() })}\n`;
}

export function claudePath(home: string, session: string, project = '-work-edit-project'): string {
  const dir = join(home, '.claude', 'projects', project);
  mkdirSync(dir, { recursive: true });
  return join(dir, `${session}.jsonl`);
}

export interface CapturedSource {
  readonly id: string;
  readonly path: string;
  readonly generation: number;
  readonly offset: number;
  /** Every retained generation's bytes, by generation number. */
  readonly generations: Map<number, Buffer>;
}

/** Every file source of the store with the bytes of each generation (records concatenated in offset order). */
export function capturedSources(db: Store): CapturedSource[] {
  const rows = db.prepare('SELECT id, path, generation, offset FROM conversation_sources ORDER BY id').all() as Array<{ id: string; path: string; generation: number; offset: number }>;
  const records = db.prepare('SELECT generation, raw FROM conversation_records WHERE source = ? ORDER BY generation, offset');
  return rows.map((row) => {
    const parts = new Map<number, Buffer[]>();
    for (const r of records.all(row.id) as Array<{ generation: number; raw: Buffer }>) {
      const list = parts.get(r.generation) ?? [];
      list.push(r.raw);
      parts.set(r.generation, list);
    }
    return { ...row, generations: new Map([...parts].map(([g, list]) => [g, Buffer.concat(list)])) };
  });
}

export function captured(home: string): CapturedSource[] {
  return withStore(home, capturedSources);
}

/** (source, generation, offset) keys held by more than one record. */
export function duplicateKeys(db: Store): number {
  return db.prepare('SELECT count(*) FROM (SELECT 1 FROM conversation_records GROUP BY source, generation, offset HAVING count(*) > 1)').pluck().get() as number;
}

/**
 * Run `args` and SIGKILL the process once it has committed to `home`'s store
 * `commits` times (polled through `PRAGMA data_version` every 5 ms, so
 * commits that land between two polls count once); resolves to whether it
 * was killed before it exited on its own. A kill keyed to the store's
 * progress, not to the clock, lands inside the work on a fast machine and on
 * a slow one alike.
 */
export function killAfterCommits(args: readonly string[], env: NodeJS.ProcessEnv, home: string, commits: number): Promise<boolean> {
  const db = openStore(home);
  const version = db.prepare('PRAGMA data_version').pluck();
  let last = version.get();
  let seen = 0;
  const child = spawnCli(args, env);
  const poll = setInterval(() => {
    const now = version.get();
    if (now === last) return;
    last = now;
    if (++seen >= commits) child.kill('SIGKILL');
  }, 5);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      db.close();
      resolve(signal === 'SIGKILL' || code === null);
    });
  });
}
