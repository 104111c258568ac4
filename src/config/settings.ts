// The history worker's own settings: the two ingestion switches
// (specification, "Disable ingestion") and the migration pace.
// - AGENT_BRIDGE_HISTORY_INGEST=false|0: the worker never starts;
// - config.json {"history": {"ingest": false}}: ingestion pauses at the next
//   yield, keeping its cursors, and resumes when set back, without a restart;
// - config.json history.migration.ioBytesPerSecond (the environment variable
//   is read by src/migration/pace-config.ts);
// - config.json history.dashboard {enabled, port, host}: whether `serve` hosts
//   the dashboard, and where.
// They are fields of the one settings schema (settings-fields.ts), read from
// the bridge home's config.json through ConfigFile: config.json belongs to the
// broker, we only read it, and a broken file never stops reads or loses data:
// it is reported, and the last good values stay in force.

import { HistoryError } from '../../protocols/errors.ts';
import type { ConfigProblem } from '../../protocols/settings.ts';
import { ConfigFile, type FileSettings } from './config-file.ts';
import { parseConfigText } from './config-text.ts';
import type { SettingName } from './settings-fields.ts';

export interface HistorySettings {
  readonly ingest: boolean;
  /** history.migration.ioBytesPerSecond; null = the default pace. */
  readonly migrationIoBytesPerSecond: number | null;
  /** history.dashboard: whether `serve` hosts the dashboard, and where (null = the defaults). */
  readonly dashboard: { readonly enabled: boolean; readonly port: number | null; readonly host: string | null };
}

export const DEFAULT_SETTINGS: HistorySettings = { ingest: true, migrationIoBytesPerSecond: null, dashboard: { enabled: true, port: null, host: null } };

/** One line for a problem: `<file>: <field>: <reason>`. */
export function problemText(problem: ConfigProblem): string {
  return `${problem.file}: ${problem.field === '' ? '' : `${problem.field}: `}${problem.reason}`;
}

function historySettings(file: Pick<FileSettings, 'values'>): HistorySettings {
  const top = file.values.get(null);
  const value = <T>(name: SettingName): T | undefined => top?.get(name)?.value as T | undefined;
  return {
    ingest: value<boolean>('history.ingest') ?? true,
    migrationIoBytesPerSecond: value<number>('history.migration.ioBytesPerSecond') ?? null,
    dashboard: {
      enabled: value<boolean>('history.dashboard.enabled') ?? true,
      port: value<number>('history.dashboard.port') ?? null,
      host: value<string>('history.dashboard.host') ?? null,
    },
  };
}

/**
 * The history settings in config.json text; throws CONFIG_INVALID naming the
 * file, the field and the reason of its first error (warnings do not throw).
 */
export function parseConfig(text: string, path: string): HistorySettings {
  const parsed = parseConfigText(text, path, 'global');
  const error = parsed.problems.find((p) => p.severity === 'error');
  if (error !== undefined) throw new HistoryError('CONFIG_INVALID', problemText(error), { path });
  return historySettings(parsed);
}

export interface SettingsRead {
  /** In force: the last good values where the file is invalid. */
  readonly settings: HistorySettings;
  /** Every error and warning of the file. */
  readonly problems: readonly ConfigProblem[];
}

/**
 * The bridge home's config.json, re-read only when its size, mtime or inode
 * changed, so it can be consulted before every batch for the cost of one stat.
 */
export class SettingsWatcher {
  private readonly file: ConfigFile;
  private last: FileSettings | null = null;
  private current: SettingsRead = { settings: DEFAULT_SETTINGS, problems: [] };

  constructor(readonly path: string) {
    this.file = new ConfigFile(path, 'global');
  }

  read(): SettingsRead {
    const state = this.file.read();
    if (state !== this.last) {
      this.last = state;
      this.current = { settings: historySettings(state), problems: state.problems };
    }
    return this.current;
  }
}
