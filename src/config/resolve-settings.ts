// The settings resolver (specification, "Project folder and settings"): every
// effective value, with the layer it came from, by the precedence
//   environment → project agent section → project top level
//   → global agent section → global top level → default.
// Global = `<bridge home>/config.json`; project = `<project root>/.agent-bridge/config.json`,
// where the project root is the canonical project identity capture assigns
// (src/project/canonical.ts: linked worktrees and subfolders share the main
// checkout's root and so its settings).
//
// Cheap enough to call per request: each call stats the two files (a file is
// re-read only when its signature changes) and reuses a resolved project root
// for LIMITS.projectRootTtlMs. Config files are only ever read. `watch` polls
// the same signatures and calls back when the effective settings may have
// changed, so edits apply without a restart; a deleted project file falls back
// to the global value, then the default.

import { realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ConfigProblem, SettingsLayer } from '../../protocols/settings.ts';
import { canonicalProjectSync } from '../project/canonical.ts';
import { ConfigFile, type FileSettings } from './config-file.ts';
import { fileSignature } from './file-signature.ts';
import { LIMITS } from './limits.ts';
import { resolvePaths } from './paths.ts';
import { INGEST_ENV, ingestEnvDisabled } from './ingest-env.ts';
import { FIELDS, SETTING_NAMES, type SettingName, type SettingValues, type SettingsAgent } from './settings-fields.ts';

export interface ResolvedValue<T> {
  readonly value: T;
  readonly layer: SettingsLayer;
  /** The file or environment variable that set it; null for a default. */
  readonly source: string | null;
  /** The key as written there (`codex.native_subagents`, `AGENT_BRIDGE_MAX_HOPS`); null for a default. */
  readonly key: string | null;
  /** The file's current value is invalid; this is its last good value, still in force. */
  readonly lastGood: boolean;
}

export type ResolvedValues = { readonly [K in SettingName]: ResolvedValue<SettingValues[K]> };

export interface ResolvedSettings {
  /** The canonical project root, or null when no project was given. */
  readonly project: string | null;
  readonly agent: SettingsAgent | null;
  readonly files: {
    readonly global: string;
    /** null without a project, or when the project's `.agent-bridge/` is the bridge home itself. */
    readonly project: string | null;
  };
  readonly values: ResolvedValues;
  /** Problems of both files and of the settings environment variables. The whole object is frozen (answers are shared). */
  readonly problems: readonly ConfigProblem[];
}

export interface SettingsResolverOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly pollMs?: number;
  readonly projectRootTtlMs?: number;
}

interface ProjectEntry {
  readonly root: string;
  readonly config: string | null;
  readonly at: number;
}

/** Project roots and project files remembered at once (more are forgotten oldest first). */
const PROJECT_CAPACITY = 256;

function remember<K, V>(map: Map<K, V>, key: K, value: V): V {
  map.delete(key);
  if (map.size >= PROJECT_CAPACITY) map.delete(map.keys().next().value as K);
  map.set(key, value);
  return value;
}

function physical(path: string): string | null {
  try {
    return realpathSync.native(path);
  } catch {
    return null;
  }
}

/** Every variable a setting reads. */
const ENV_VARIABLES: readonly string[] = SETTING_NAMES.flatMap((name) => FIELDS[name].env ?? []);

/** Environment values of settings that have a variable (an empty variable counts as unset). */
function fromEnvironment(env: NodeJS.ProcessEnv, problems: ConfigProblem[]): Map<SettingName, ResolvedValue<unknown>> {
  const out = new Map<SettingName, ResolvedValue<unknown>>();
  for (const name of SETTING_NAMES) {
    const def = FIELDS[name];
    const variable = def.env;
    const raw = variable === undefined ? undefined : env[variable];
    if (variable === undefined || raw === undefined || raw.trim() === '') continue;
    if (variable === INGEST_ENV) {
      // The environment can only switch ingestion off; anything but false/0 leaves the config in charge.
      if (ingestEnvDisabled(env)) out.set(name, { value: false, layer: 'env', source: variable, key: variable, lastGood: false });
      else if (!/^(true|1)$/i.test(raw.trim())) problems.push({ severity: 'warning', file: 'environment', field: variable, reason: `only false or 0 switch ingestion off, got "${raw}"; ignored` });
      continue;
    }
    const parsed = def.schema.safeParse(raw);
    if (parsed.success) out.set(name, { value: parsed.data, layer: 'env', source: variable, key: variable, lastGood: false });
    else problems.push({ severity: 'error', file: 'environment', field: variable, reason: `must be ${def.expect}, got "${raw}"; ignored` });
  }
  return out;
}

export class SettingsResolver {
  readonly env: NodeJS.ProcessEnv;
  readonly globalPath: string;
  private readonly global: ConfigFile;
  private readonly projectFiles = new Map<string, ConfigFile>();
  private readonly roots = new Map<string, ProjectEntry>();
  private readonly answers = new Map<string, { global: FileSettings; local: FileSettings | null; variables: string; settings: ResolvedSettings }>();
  private readonly pollMs: number;
  private readonly rootTtlMs: number;

  constructor(options: SettingsResolverOptions = {}) {
    this.env = options.env ?? process.env;
    this.globalPath = resolvePaths(this.env).configJson;
    this.global = new ConfigFile(this.globalPath, 'global');
    this.pollMs = options.pollMs ?? LIMITS.configPollMs;
    this.rootTtlMs = options.projectRootTtlMs ?? LIMITS.projectRootTtlMs;
  }

  /** The canonical root of the project containing `path`, and its config file (null when it is the global one). */
  private project(path: string): ProjectEntry {
    const absolute = resolve(path);
    const cached = this.roots.get(absolute);
    if (cached !== undefined && Date.now() - cached.at < this.rootTtlMs) return cached;
    const root = canonicalProjectSync(absolute);
    const candidate = join(root, '.agent-bridge', 'config.json');
    // A project at the user's home (cwd ~): its .agent-bridge/ is the bridge home; that file is the global layer only.
    const folder = physical(dirname(candidate));
    const same = candidate === this.globalPath || (folder !== null && folder === physical(dirname(this.globalPath)));
    return remember(this.roots, absolute, { root, config: same ? null : candidate, at: Date.now() });
  }

  private projectFile(path: string): ConfigFile {
    return this.projectFiles.get(path) ?? remember(this.projectFiles, path, new ConfigFile(path, 'project'));
  }

  /** Effective settings for an agent (null: no agent section) in the project containing `project` (null: none). */
  resolve(project: string | null, agent: SettingsAgent | null): ResolvedSettings {
    const entry = project === null ? null : this.project(project);
    const global = this.global.read();
    const local = entry === null || entry.config === null ? null : this.projectFile(entry.config).read();
    // Unchanged files (the same parsed state) and environment: the same, frozen, answer.
    const key = `${entry?.root ?? ''}\0${entry?.config ?? ''}\0${agent ?? ''}`;
    const variables = ENV_VARIABLES.map((name) => this.env[name] ?? '').join('\0');
    const hit = this.answers.get(key);
    if (hit !== undefined && hit.global === global && hit.local === local && hit.variables === variables) return hit.settings;
    const settings = this.compute(entry, agent, global, local);
    remember(this.answers, key, { global, local, variables, settings });
    return settings;
  }

  private compute(entry: ProjectEntry | null, agent: SettingsAgent | null, global: FileSettings, local: FileSettings | null): ResolvedSettings {
    const layers: Array<{ layer: SettingsLayer; file: FileSettings; section: SettingsAgent | null }> = [];
    if (local !== null && agent !== null) layers.push({ layer: 'project-agent', file: local, section: agent });
    if (local !== null) layers.push({ layer: 'project', file: local, section: null });
    if (agent !== null) layers.push({ layer: 'global-agent', file: global, section: agent });
    layers.push({ layer: 'global', file: global, section: null });

    const problems: ConfigProblem[] = [];
    const env = fromEnvironment(this.env, problems);
    const values: Record<string, ResolvedValue<unknown>> = {};
    for (const name of SETTING_NAMES) {
      values[name] = env.get(name) ?? this.fromFiles(name, layers) ?? { value: FIELDS[name].fallback, layer: 'default', source: null, key: null, lastGood: false };
    }
    for (const value of Object.values(values)) Object.freeze(value);
    return Object.freeze({
      project: entry?.root ?? null,
      agent,
      files: Object.freeze({ global: this.globalPath, project: entry?.config ?? null }),
      values: Object.freeze(values) as ResolvedValues,
      problems: Object.freeze([...global.problems, ...(local?.problems ?? []), ...problems]),
    });
  }

  private fromFiles(name: SettingName, layers: ReadonlyArray<{ layer: SettingsLayer; file: FileSettings; section: SettingsAgent | null }>): ResolvedValue<unknown> | null {
    for (const { layer, file, section } of layers) {
      const found = file.values.get(section)?.get(name);
      if (found !== undefined) return { value: found.value, layer, source: file.path, key: found.key, lastGood: found.lastGood };
    }
    return null;
  }

  /** What the effective settings depend on: the files' signatures and the project root. */
  private fingerprint(project: string | null): string {
    const entry = project === null ? null : this.project(project);
    const local = entry === null || entry.config === null ? '' : `${entry.config}=${fileSignature(entry.config) ?? 'absent'}`;
    return `${fileSignature(this.globalPath) ?? 'absent'}|${entry?.root ?? ''}|${local}`;
  }

  /**
   * Call `listener` with the effective settings now and whenever a config
   * file (or the project root) changes; returns a function that stops. Polls
   * every pollMs (one stat per file), so editors that replace the file are seen.
   */
  watch(project: string | null, agent: SettingsAgent | null, listener: (settings: ResolvedSettings) => void): () => void {
    let seen = this.fingerprint(project);
    listener(this.resolve(project, agent));
    const timer = setInterval(() => {
      const now = this.fingerprint(project);
      if (now === seen) return;
      seen = now;
      listener(this.resolve(project, agent));
    }, this.pollMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}

let shared: SettingsResolver | null = null;

/**
 * The broker's entry point: effective settings for `agent` in the project
 * containing the path `project` (any folder inside it; null for none), each
 * value with its layer. Uses one resolver per process (process.env), so last
 * good values are remembered across calls.
 */
export function resolveSettings(project: string | null, agent: SettingsAgent | null, resolver: SettingsResolver = (shared ??= new SettingsResolver())): ResolvedSettings {
  return resolver.resolve(project, agent);
}
