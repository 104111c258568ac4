// Validation of config.json text against the settings schema
// (settings-fields.ts): which values are in force, which slots are invalid
// (their last good value is kept by ConfigFile), and every problem, each
// naming the file, the field and the reason. Nothing here throws or reads a
// file; config-file.ts reads, remembers last good values and watches.

import type { ConfigProblem } from '../../protocols/settings.ts';
import {
  BOOKKEEPING_KEYS,
  EFFORT_TARGETS,
  FIELDS,
  NATIVE_SUBAGENTS,
  deepFreeze,
  type SettingName,
  type SettingsAgent,
  isSettingsAgent,
} from './settings-fields.ts';

/** `global`: the bridge home's config.json; `project`: `<project root>/.agent-bridge/config.json`. */
export type ConfigKind = 'global' | 'project';

export interface FileValue {
  readonly value: unknown;
  /** The key as written in the file (`codex.native_subagents`). */
  readonly key: string;
  /** The file's current value is invalid; this is the last good one. */
  readonly lastGood: boolean;
}

export interface FileSettings {
  readonly path: string;
  readonly kind: ConfigKind;
  readonly present: boolean;
  /** Values by agent section (null: the top level), then by setting. */
  readonly values: ReadonlyMap<SettingsAgent | null, ReadonlyMap<SettingName, FileValue>>;
  readonly problems: readonly ConfigProblem[];
}

export type Values = Map<SettingsAgent | null, Map<SettingName, FileValue>>;

export interface Parsed {
  readonly values: Values;
  /** Slots whose current value is invalid (their last good value is kept); null: the whole file failed. */
  readonly invalid: Set<string> | null;
  readonly problems: ConfigProblem[];
}

const HISTORY_FIELDS = (Object.keys(FIELDS) as SettingName[]).filter((name) => name.startsWith('history.'));
const PROJECT_FIELDS = (Object.keys(FIELDS) as SettingName[]).filter((name) => FIELDS[name].scope === 'project' && !name.startsWith('effort.'));
const PROJECT_LIST = [...PROJECT_FIELDS, 'native_subagents', 'effort'].join(', ');

export function slot(section: SettingsAgent | null, name: SettingName): string {
  return `${section ?? ''}/${name}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** JSON.parse's reason, with the line and column when it names a position. */
function jsonReason(text: string, error: unknown): string {
  const message = (error as Error).message;
  const at = /at position (\d+)/.exec(message);
  if (at === null) return message;
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  return `${message} (line ${line}, column ${before.length - before.lastIndexOf('\n')})`;
}

/** Walks one parsed file; every decision about a key is made here. */
class Walker {
  readonly values: Values = new Map();
  readonly invalid = new Set<string>();
  readonly problems: ConfigProblem[] = [];

  constructor(
    private readonly path: string,
    private readonly kind: ConfigKind,
  ) {}

  private problem(severity: ConfigProblem['severity'], field: string, reason: string): void {
    this.problems.push({ severity, file: this.path, field, reason });
  }

  private set(section: SettingsAgent | null, name: SettingName, value: unknown, key: string): void {
    let map = this.values.get(section);
    if (map === undefined) this.values.set(section, (map = new Map()));
    map.set(name, { value: deepFreeze(value), key, lastGood: false });
  }

  /** Why `name` may not be set here, or null when it may. */
  private refusal(name: SettingName | 'history', section: SettingsAgent | null): string | null {
    const scope = name === 'history' ? 'machine' : FIELDS[name].scope;
    if (this.kind === 'project' && scope !== 'project') {
      if (name === 'resourceSlots') return 'shared machine resource-slot capacities are global: only the bridge home\'s config.json sets them; ignored here';
      if (scope === 'machine') return 'the history switches belong to the bridge home\'s config.json; ignored here';
      return `a project config may set only ${PROJECT_LIST}; ignored here`;
    }
    if (section !== null && scope === 'machine') return 'applies to the whole machine, not to one agent: set it at the top level; ignored here';
    return null;
  }

  private accept(section: SettingsAgent | null, name: SettingName, value: unknown, key: string): void {
    const refused = this.refusal(name, section);
    if (refused !== null) {
      this.problem('warning', key, refused);
      return;
    }
    const def = FIELDS[name];
    const parsed = def.schema.safeParse(value);
    if (parsed.success) this.set(section, name, parsed.data, key);
    else {
      this.invalid.add(slot(section, name));
      this.problem('error', key, `must be ${def.expect}, got ${show(value)}`);
    }
  }

  walk(object: Record<string, unknown>, section: SettingsAgent | null): void {
    const prefix = section === null ? '' : `${section}.`;
    let alias: { value: unknown; key: string } | null = null;
    for (const [key, value] of Object.entries(object)) {
      const at = prefix + key;
      if (section === null && isSettingsAgent(key)) {
        if (isObject(value)) this.walk(value, key);
        else this.problem('error', at, `must be an object of settings for ${key}, got ${show(value)}`);
      } else if (section === null && BOOKKEEPING_KEYS.has(key)) {
        // written by the broker's JSON store; not a setting
      } else if (key === 'effort') this.effort(section, value, at);
      else if (key === 'history') this.history(section, value, at);
      else if (key === 'native_subagents') alias = { value, key: at };
      else if (Object.hasOwn(FIELDS, key) && !key.includes('.')) this.accept(section, key as SettingName, value, at);
      else this.problem('warning', at, 'unknown field; ignored');
    }
    if (alias !== null) this.nativeSubagents(section, alias.value, alias.key, Object.hasOwn(object, 'codexSubagents'));
  }

  /** native_subagents sets codexSubagents: true (Codex's default), false (0: disabled) or a count. */
  private nativeSubagents(section: SettingsAgent | null, value: unknown, key: string, shadowed: boolean): void {
    if (shadowed) {
      this.problem('warning', key, `codexSubagents in the same ${section === null ? 'file' : 'section'} wins; native_subagents ignored`);
      return;
    }
    const parsed = NATIVE_SUBAGENTS.schema.safeParse(value);
    if (parsed.success) this.set(section, 'codexSubagents', parsed.data, key);
    else {
      this.invalid.add(slot(section, 'codexSubagents'));
      this.problem('error', key, `must be ${NATIVE_SUBAGENTS.expect}, got ${show(value)}`);
    }
  }

  /** "high" (every agent), null (every agent's CLI default), or {"codex": "high", …}. */
  private effort(section: SettingsAgent | null, value: unknown, at: string): void {
    if (typeof value === 'string' || value === null) {
      // Every effort.<agent> field has the same schema and scope.
      const def = FIELDS['effort.codex'];
      const parsed = def.schema.safeParse(value);
      for (const target of EFFORT_TARGETS) {
        if (parsed.success) this.set(section, `effort.${target}`, parsed.data, at);
        else this.invalid.add(slot(section, `effort.${target}`));
      }
      if (!parsed.success) this.problem('error', at, `must be ${def.expect}, got ${show(value)}`);
    } else if (isObject(value)) {
      for (const [target, level] of Object.entries(value)) {
        if ((EFFORT_TARGETS as readonly string[]).includes(target)) this.accept(section, `effort.${target}` as SettingName, level, `${at}.${target}`);
        else this.problem('warning', `${at}.${target}`, `unknown agent; effort is set for ${EFFORT_TARGETS.join(', ')}; ignored`);
      }
    } else {
      for (const target of EFFORT_TARGETS) this.invalid.add(slot(section, `effort.${target}`));
      this.problem('error', at, `must be an effort level for every agent ("high") or an object of agent to level ({"codex": "high"}), got ${show(value)}`);
    }
  }

  /**
   * The history worker's own settings, the global top level only:
   * {"ingest": bool, "migration": {"ioBytesPerSecond": n}, "dashboard": {"enabled", "port", "host"}}.
   * Each field is `history.<key>` or `history.<group>.<key>` in FIELDS.
   */
  private history(section: SettingsAgent | null, value: unknown, at: string): void {
    const refused = this.refusal('history', section);
    if (refused !== null) {
      this.problem('warning', at, refused);
      return;
    }
    this.nested(value, at, 'must be an object such as {"ingest": false}');
  }

  /** An object whose keys are the settings (or groups of settings) named `<at>.<key>`. */
  private nested(value: unknown, at: string, expect: string): void {
    const below = HISTORY_FIELDS.filter((name) => name.startsWith(`${at}.`));
    if (!isObject(value)) {
      for (const name of below) this.invalid.add(slot(null, name));
      this.problem('error', at, `${expect}, got ${show(value)}`);
      return;
    }
    for (const [key, inner] of Object.entries(value)) {
      const name = `${at}.${key}`;
      if ((below as string[]).includes(name)) this.accept(null, name as SettingName, inner, name);
      else if (below.some((field) => field.startsWith(`${name}.`))) this.nested(inner, name, 'must be an object');
      else this.problem('warning', name, 'unknown field; ignored');
    }
  }
}

/** Validate config.json text: the values in force and every problem (nothing is thrown). */
export function parseConfigText(text: string, path: string, kind: ConfigKind): Parsed {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // editors on Windows write a BOM
  if (body.trim() === '') return { values: new Map(), invalid: null, problems: [{ severity: 'error', file: path, field: '', reason: 'is empty, which is not valid JSON; write {} for no settings' }] };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    return { values: new Map(), invalid: null, problems: [{ severity: 'error', file: path, field: '', reason: `not valid JSON: ${jsonReason(body, error)}` }] };
  }
  if (!isObject(json)) {
    return { values: new Map(), invalid: null, problems: [{ severity: 'error', file: path, field: '', reason: `must be a JSON object of settings, got ${show(json)}` }] };
  }
  const walker = new Walker(path, kind);
  walker.walk(json, null);
  return { values: walker.values, invalid: walker.invalid, problems: walker.problems };
}
