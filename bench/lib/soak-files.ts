// The soak's source files and what happens to them between kills: Claude
// transcripts and Codex rollouts that are appended to (whole lines and lines
// left half-written), truncated, moved (Codex archiving, Claude project
// folders), rewritten in place at the same length with the mtime set back,
// replaced by rename, created and deleted. Every version a file ever had is
// kept (by lineage: one file across its moves), so a check can tell whether
// each captured record is bytes that file really held at that offset.

import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface Lineage {
  readonly kind: 'claude' | 'codex';
  readonly session: string;
  path: string | null;
  readonly paths: string[];
  readonly versions: Buffer[];
}

const WORDS = ['amber', 'basalt', 'cedar', 'delta', 'ember', 'fjord', 'garnet', 'harbor', 'indigo', 'juniper', 'kelp', 'lumen', 'meadow', 'nimbus'];

export class SoakFiles {
  readonly lineages: Lineage[] = [];
  /** The rest of a line written in two pieces, by lineage. */
  private readonly pendingRest = new Map<Lineage, string>();
  private readonly claudeRoot: string;
  private readonly codexRoot: string;

  constructor(
    home: string,
    private readonly random: () => number,
  ) {
    this.claudeRoot = join(home, '.claude', 'projects');
    this.codexRoot = join(home, '.codex');
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)] as T;
  }

  private words(n: number): string {
    return Array.from({ length: n }, () => this.pick(WORDS)).join(' ');
  }

  private line(l: Lineage): string {
    const text = `${this.words(3 + Math.floor(this.random() * 30))}${this.random() < 0.01 ? ` ${'x'.repeat(70_000 + Math.floor(this.random() * 60_000))} tailword` : ''}`;
    if (l.kind === 'claude') {
      return `${JSON.stringify({ parentUuid: randomUUID(), type: 'user', message: { role: 'user', content: text }, uuid: randomUUID(), timestamp: new Date().toISOString(), cwd: '/work/soak', sessionId: l.session })}\n`;
    }
    return `${JSON.stringify({ timestamp: new Date().toISOString(), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } })}\n`;
  }

  private lines(l: Lineage, n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += this.line(l);
    return out;
  }

  private record(l: Lineage): void {
    if (l.path === null) return;
    l.versions.push(readFileSync(l.path));
  }

  private newPath(kind: 'claude' | 'codex', session: string): string {
    const path =
      kind === 'claude'
        ? join(this.claudeRoot, `-work-soak-${Math.floor(this.random() * 4)}`, `${session}.jsonl`)
        : join(this.codexRoot, 'sessions', '2026', '01', String(1 + Math.floor(this.random() * 5)).padStart(2, '0'), `rollout-2026-01-02T10-00-00-${session}.jsonl`);
    mkdirSync(dirname(path), { recursive: true });
    return path;
  }

  /** A new file of `lines` lines; returns its lineage. */
  create(kind: 'claude' | 'codex', lines: number, at?: string): Lineage {
    const session = randomUUID();
    const path = at ?? this.newPath(kind, session);
    const l: Lineage = { kind, session, path, paths: [path], versions: [] };
    writeFileSync(path, this.lines(l, lines));
    this.record(l);
    this.lineages.push(l);
    return l;
  }

  live(): Lineage[] {
    return this.lineages.filter((l) => l.path !== null);
  }

  /** One random change to one live file. Returns what was done, for the log. */
  mutate(): string {
    const live = this.live();
    if (live.length === 0 || this.random() < 0.04) return `create ${this.create(this.random() < 0.5 ? 'claude' : 'codex', 5 + Math.floor(this.random() * 200)).kind}`;
    const l = this.pick(live);
    const path = l.path as string;
    const size = readFileSync(path).length;
    const r = this.random();
    if (r < 0.5) {
      appendFileSync(path, (this.pendingRest.get(l) ?? '') + this.lines(l, 1 + Math.floor(this.random() * 60)));
      this.pendingRest.delete(l);
      this.record(l);
      return 'append';
    }
    if (r < 0.6) {
      // A line written in two pieces: the first now, the rest at a later change.
      const text = this.line(l);
      const cut = 1 + Math.floor(this.random() * (text.length - 2));
      appendFileSync(path, (this.pendingRest.get(l) ?? '') + text.slice(0, cut));
      this.record(l);
      this.pendingRest.set(l, text.slice(cut));
      return 'append half a line';
    }
    const rest = this.pendingRest.get(l);
    if (rest !== undefined && r < 0.7) {
      appendFileSync(path, rest);
      this.pendingRest.delete(l);
      this.record(l);
      return 'finish the half line';
    }
    if (r < 0.75 && size > 200) {
      const bytes = readFileSync(path);
      const end = bytes.lastIndexOf(10, Math.floor(size * this.random()));
      truncateSync(path, end + 1);
      this.pendingRest.delete(l);
      this.record(l);
      return 'truncate';
    }
    if (r < 0.84) {
      const to = l.kind === 'codex' ? this.codexMove(path, l.session) : this.newPath('claude', l.session);
      if (to === path || existsSync(to)) return 'move (skipped: target exists)';
      mkdirSync(dirname(to), { recursive: true });
      renameSync(path, to);
      l.path = to;
      l.paths.push(to);
      this.record(l);
      // Sometimes a new file takes the old name at once.
      if (this.random() < 0.3) this.create(l.kind, 3 + Math.floor(this.random() * 20), path);
      return 'move';
    }
    if (r < 0.9 && size > 500) {
      // Same-length rewrite in the middle, the mtime set back to the nanosecond.
      const bytes = readFileSync(path);
      const at = Math.floor(this.random() * (size - 8));
      const word = WORDS.map((w) => bytes.indexOf(w, at)).filter((i) => i !== -1).sort((a, b) => a - b)[0];
      if (word === undefined) return 'rewrite (skipped: no word)';
      bytes.write('Z', word, 'latin1');
      const reference = `${path}.times`;
      writeFileSync(reference, '');
      execFileSync('touch', ['-r', path, reference]);
      writeFileSync(path, bytes);
      execFileSync('touch', ['-r', reference, path]);
      rmSync(reference);
      this.record(l);
      return 'rewrite in place';
    }
    if (r < 0.95) {
      const temp = `${path}.tmp`;
      writeFileSync(temp, this.lines(l, 3 + Math.floor(this.random() * 80)));
      renameSync(temp, path);
      this.pendingRest.delete(l);
      this.record(l);
      return 'replace by rename';
    }
    rmSync(path);
    l.path = null;
    this.pendingRest.delete(l);
    return 'delete';
  }

  private codexMove(path: string, session: string): string {
    const name = `rollout-2026-01-02T10-00-00-${session}.jsonl`;
    return path.includes('/archived_sessions/') ? join(this.codexRoot, 'sessions', '2026', '02', '01', name) : join(this.codexRoot, 'archived_sessions', name);
  }

  /** Every version of every lineage that ever lived at one of `paths`. */
  versionsAt(paths: readonly string[]): Buffer[] {
    const wanted = new Set(paths);
    return this.lineages.filter((l) => l.paths.some((p) => wanted.has(p))).flatMap((l) => l.versions);
  }
}
