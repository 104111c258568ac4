// Where the bytes of a history.db go: dbstat per b-tree (every table and
// index, FTS5 shadow tables named as such), the table each belongs to, its
// share of the file, and its bytes per source byte, plus the file's free
// pages. Read-only; needs a SQLite built with dbstat (better-sqlite3's is).

import Database from 'better-sqlite3';

export interface BtreeSize {
  readonly name: string;
  /** 'table', 'index' (autoindexes included) or 'fts' (an FTS5 shadow table). */
  readonly kind: 'table' | 'index' | 'fts';
  /** The table it belongs to (the FTS5 table for its shadows). */
  readonly table: string;
  /** Bytes of pages it occupies, and of those, bytes unused inside them. */
  readonly bytes: number;
  readonly unused: number;
}

export interface StoreBreakdown {
  readonly fileBytes: number;
  readonly freeBytes: number;
  readonly btrees: readonly BtreeSize[];
}

const FTS_SHADOW = /^(.*)_(data|idx|docsize|config|content)$/;

export function storeBreakdown(path: string): StoreBreakdown {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const pages = db.pragma('page_count', { simple: true }) as number;
    const free = db.pragma('freelist_count', { simple: true }) as number;
    const owners = new Map((db.prepare('SELECT name, type, tbl_name FROM sqlite_master').all() as Array<{ name: string; type: string; tbl_name: string }>).map((r) => [r.name, r]));
    const fts = new Set([...owners.values()].filter((r) => r.type === 'table' && /USING\s+fts5/i.test(String(db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(r.name) ?? ''))).map((r) => r.name));
    const rows = db.prepare('SELECT name, sum(pgsize) AS bytes, sum(unused) AS unused FROM dbstat GROUP BY name ORDER BY bytes DESC').all() as Array<{ name: string; bytes: number; unused: number }>;
    const btrees = rows.map((r): BtreeSize => {
      const owner = owners.get(r.name);
      const shadow = FTS_SHADOW.exec(r.name);
      if (shadow !== null && fts.has(shadow[1] as string)) return { ...r, kind: 'fts', table: shadow[1] as string };
      if (owner?.type === 'index') return { ...r, kind: 'index', table: owner.tbl_name };
      return { ...r, kind: 'table', table: owner?.tbl_name ?? r.name };
    });
    return { fileBytes: pageSize * pages, freeBytes: pageSize * free, btrees };
  } finally {
    db.close();
  }
}

const MiB = 1024 * 1024;

/** The breakdown as printed lines: one per b-tree (largest first), then per table with its indexes, as MiB, share and bytes per source byte. */
export function formatBreakdown(b: StoreBreakdown, sourceBytes: number): string[] {
  const perSource = (bytes: number): string => (sourceBytes > 0 ? (bytes / sourceBytes).toFixed(3) : '-');
  const line = (name: string, kind: string, bytes: number, unused: number | null): string =>
    `${name.padEnd(44)} ${kind.padEnd(6)} ${(bytes / MiB).toFixed(1).padStart(9)} MiB ${((bytes / b.fileBytes) * 100).toFixed(1).padStart(5)} % ${perSource(bytes).padStart(7)} B/B${unused === null ? '' : `  (${(unused / MiB).toFixed(1)} MiB unused in its pages)`}`;
  const out = [`history.db ${(b.fileBytes / MiB).toFixed(1)} MiB = ${perSource(b.fileBytes)} bytes per source byte (${(sourceBytes / MiB).toFixed(1)} MiB of source); by b-tree (dbstat):`];
  for (const t of b.btrees) if (t.bytes >= b.fileBytes / 2000) out.push(`  ${line(t.name, t.kind, t.bytes, t.unused)}`);
  const small = b.btrees.filter((t) => t.bytes < b.fileBytes / 2000);
  if (small.length > 0) out.push(`  ${line(`${small.length} smaller b-trees`, '', small.reduce((n, t) => n + t.bytes, 0), null)}`);
  if (b.freeBytes > 0) out.push(`  ${line('(free pages)', '', b.freeBytes, null)}`);
  const byTable = new Map<string, number>();
  for (const t of b.btrees) byTable.set(t.table, (byTable.get(t.table) ?? 0) + t.bytes);
  out.push('  by table, its indexes and FTS5 shadow tables included:');
  for (const [table, bytes] of [...byTable].sort((x, y) => y[1] - x[1]).filter(([, bytes]) => bytes >= b.fileBytes / 2000)) out.push(`    ${line(table, '', bytes, null)}`);
  return out;
}
