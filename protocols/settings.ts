// What the settings resolver reports, in shapes that cross threads (the
// history worker's status) and processes (status --json, settings --json).
// The settings themselves, their validation and the resolver live in
// src/config/ (settings-fields.ts, config-file.ts, resolve-settings.ts).

/**
 * Where an effective value came from, highest precedence first (specification,
 * "Project folder and settings"): the environment, the project's agent
 * section, the project's top level, the global agent section, the global top
 * level, the built-in default.
 */
export const SETTINGS_LAYERS = ['env', 'project-agent', 'project', 'global-agent', 'global', 'default'] as const;
export type SettingsLayer = (typeof SETTINGS_LAYERS)[number];

/** The layers as people read them (settings command, README). */
export const LAYER_NAMES: Readonly<Record<SettingsLayer, string>> = {
  env: 'environment',
  'project-agent': 'project agent section',
  project: 'project',
  'global-agent': 'global agent section',
  global: 'global',
  default: 'default',
};

/**
 * A problem with a config file or a settings environment variable. Neither
 * kind ever stops capture or reads: for an error the last good value (or the
 * next layer, or the default) stays in force; a warning names something that
 * is ignored.
 */
export interface ConfigProblem {
  readonly severity: 'error' | 'warning';
  /** The file's path, or `environment` for a variable. */
  readonly file: string;
  /** The field as written (`codex.lingerSec`, `history.ingest`), an environment variable's name, or '' for the whole file. */
  readonly field: string;
  readonly reason: string;
}

/** The config part of the history worker's status (the bridge home's config.json, as the worker reads it). */
export interface ConfigStatus {
  readonly file: string;
  readonly problems: readonly ConfigProblem[];
}
