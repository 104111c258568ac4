// The two ingestion switches (specification, "Disable ingestion"):
// - AGENT_BRIDGE_HISTORY_INGEST=false|0: the worker never starts;
// - config.json {"history": {"ingest": false}}: ingestion pauses at the next
//   yield, keeping its cursors, and resumes when set back, without a restart.
// config.json belongs to the broker; we only read it, and a broken file never
// stops reads or loses data: it is reported and ingestion keeps its last state.

import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { HistoryError } from '../../protocols/errors.ts';
import { fileSignature } from './file-signature.ts';
import { MIGRATION_IO_RANGE } from './limits.ts';

export function ingestEnvDisabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.AGENT_BRIDGE_HISTORY_INGEST?.trim().toLowerCase();
  return value === 'false' || value === '0';
}

const ConfigSchema = z.looseObject({
  history: z
    .looseObject({
      ingest: z.boolean().optional(),
      migration: z
        .looseObject({
          ioBytesPerSecond: z.number().int().min(MIGRATION_IO_RANGE.min).max(MIGRATION_IO_RANGE.max).optional(),
        })
        .optional(),
      dashboard: z
        .looseObject({
          enabled: z.boolean().optional(),
          port: z.number().int().min(0).max(65535).optional(),
          host: z.string().min(1).optional(),
        })
        .optional(),
    })
    .optional(),
});

export interface HistorySettings {
  readonly ingest: boolean;
  /** history.migration.ioBytesPerSecond; null = the default pace. */
  readonly migrationIoBytesPerSecond: number | null;
  /** history.dashboard: whether `serve` hosts the dashboard, and where (null = the defaults). */
  readonly dashboard: { readonly enabled: boolean; readonly port: number | null; readonly host: string | null };
}

export const DEFAULT_SETTINGS: HistorySettings = { ingest: true, migrationIoBytesPerSecond: null, dashboard: { enabled: true, port: null, host: null } };

/** Parse config.json text; throws CONFIG_INVALID with the reason. */
export function parseConfig(text: string, path: string): HistorySettings {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new HistoryError('CONFIG_INVALID', `${path} is not valid JSON: ${(error as Error).message}`, { path });
  }
  const parsed = ConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HistoryError('CONFIG_INVALID', `${path}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'invalid'}`.trim(), { path });
  }
  const history = parsed.data.history;
  return {
    ingest: history?.ingest ?? true,
    migrationIoBytesPerSecond: history?.migration?.ioBytesPerSecond ?? null,
    dashboard: { enabled: history?.dashboard?.enabled ?? true, port: history?.dashboard?.port ?? null, host: history?.dashboard?.host ?? null },
  };
}

/**
 * Re-reads config.json only when its size or mtime changed, so it can be
 * consulted before every batch for the cost of one stat.
 */
export class SettingsWatcher {
  private signature = '';
  private current: HistorySettings = DEFAULT_SETTINGS;
  private problem: HistoryError | null = null;

  constructor(private readonly path: string) {}

  read(): { settings: HistorySettings; problem: HistoryError | null } {
    const signature = fileSignature(this.path) ?? 'absent';
    if (signature !== this.signature) {
      this.signature = signature;
      if (signature === 'absent') {
        this.current = DEFAULT_SETTINGS;
        this.problem = null;
      } else {
        try {
          this.current = parseConfig(readFileSync(this.path, 'utf8'), this.path);
          this.problem = null;
        } catch (error) {
          // Keep the last good settings; report the problem.
          this.problem = error instanceof HistoryError ? error : new HistoryError('CONFIG_INVALID', String(error), { path: this.path });
        }
      }
    }
    return { settings: this.current, problem: this.problem };
  }
}
