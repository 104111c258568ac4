// The settings schema: every field that config.json may hold (the bridge
// home's and a project's `.agent-bridge/config.json`), with its zod
// validation, its default, its environment variable and where it may be set.
// Validation follows the broker's existing config fields (the reference
// implementation's list, docs/reference-implementation.md §9): values are
// passed to CLIs verbatim, so only what could break a command line or a
// limit is refused. Booleans and whole numbers also accept their string forms
// ("yes", "4"), as the broker always did, because environment variables can
// only be strings.
//
// Scopes:
//   project  any layer: a project's config (top level and agent sections) and
//            the global one. Exactly the reference's project-level list.
//   global   the global config only (top level and agent sections); a project
//            setting it is warned about and ignored.
//   machine  the global top level only: shared machine resources and the
//            history worker's own switches, which no agent or project may vary.

import { z } from 'zod';
import { INGEST_ENV } from './ingest-env.ts';
import { MIGRATION_IO_RANGE, LIMITS } from './limits.ts';

/** The migration's IO pace; validated by src/migration/pace-config.ts, which refuses a bad value before any work. */
export const MIGRATION_IO_ENV = 'AGENT_BRIDGE_HISTORY_MIGRATION_IO_BYTES_PER_SECOND';

/** Agents that may have a section (`{"codex": {...}}`) in a config file. */
export const SETTINGS_AGENTS = ['claude', 'codex', 'opencode', 'antigravity', 'other'] as const;
export type SettingsAgent = (typeof SETTINGS_AGENTS)[number];

/** Agents that `effort` names (`{"effort": {"codex": "high"}}`; a plain string sets all of them). */
export const EFFORT_TARGETS = ['claude', 'codex', 'opencode', 'antigravity'] as const;

/** Codex's own default of open native child threads, used for `native_subagents: true`. */
export const DEFAULT_CODEX_SUBAGENTS = 6;
const MAX_CODEX_SUBAGENTS = 32;

/** Model ids go to a CLI verbatim: refuse only whitespace, quotes and shell metacharacters. */
const MODEL_NAME = /^[^\s"'`&|<>^%$;()]{1,200}$/;
const EFFORT_LEVEL = /^[A-Za-z0-9_-]{1,20}$/;
const RESOURCE_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;

const BOOL_WORDS = new Map<string, boolean>([
  ['1', true], ['true', true], ['yes', true], ['on', true],
  ['0', false], ['false', false], ['no', false], ['off', false],
]);
const bool = z.preprocess((v) => (typeof v === 'string' ? (BOOL_WORDS.get(v.trim().toLowerCase()) ?? v) : v), z.boolean());
const whole = (min: number, max: number) =>
  z.preprocess((v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v), z.number().int().min(min).max(max));
const text = z.string().trim().min(1);
const model = z.string().trim().regex(MODEL_NAME);
const CODEX_SANDBOXES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
const AGENT_LIST = 'claude, codex, opencode';

export type Scope = 'project' | 'global' | 'machine';

export interface FieldDef<S extends z.ZodType = z.ZodType> {
  readonly schema: S;
  readonly fallback: z.output<S>;
  /** What a valid value looks like, for error reasons ("must be …"). */
  readonly expect: string;
  readonly scope: Scope;
  readonly env?: string;
}

/** Defaults and parsed values are shared by every answer of the resolver: nobody may change them. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function field<S extends z.ZodType>(def: FieldDef<S>): FieldDef<S> {
  deepFreeze(def.fallback);
  return def;
}

const effort = (): FieldDef<z.ZodType<string | null>> =>
  field({ schema: z.string().regex(EFFORT_LEVEL).nullable(), fallback: null, expect: 'an effort level of 1 to 20 letters, digits, - or _', scope: 'project' });

const NOTIFICATIONS = { approvals: true, finish: true, fail: true };
const HISTORY_ANSWER = { preference: ['codex', 'claude', 'opencode'] as Array<'claude' | 'codex' | 'opencode'>, claudeModel: 'haiku', codexModel: 'gpt-6-luna', opencodeModel: null as string | null };

/**
 * Every setting, by the name `settings` shows. Nested file keys are dotted:
 * `effort.codex` is `{"effort": {"codex": …}}`, `history.ingest` is
 * `{"history": {"ingest": …}}`. `native_subagents` is not here: it is an
 * alias that config-file.ts maps onto `codexSubagents`.
 */
export const FIELDS = {
  // Project-level settings (the reference's list).
  name: field({ schema: text.nullable(), fallback: null, expect: 'a non-empty peer name', scope: 'project', env: 'AGENT_BRIDGE_NAME' }),
  projectGroups: field({ schema: bool, fallback: true, expect: 'true or false', scope: 'project' }),
  codexModel: field({ schema: model.nullable(), fallback: null, expect: 'a model id without spaces, quotes or shell characters', scope: 'project' }),
  claudeModel: field({ schema: model.nullable(), fallback: null, expect: 'a model id without spaces, quotes or shell characters', scope: 'project' }),
  opencodeModel: field({ schema: model.nullable(), fallback: null, expect: 'a provider/model id without spaces, quotes or shell characters', scope: 'project' }),
  antigravityModel: field({ schema: model.nullable(), fallback: null, expect: 'a model id without spaces, quotes or shell characters', scope: 'project' }),
  'effort.claude': effort(),
  'effort.codex': effort(),
  'effort.opencode': effort(),
  'effort.antigravity': effort(),
  codexSubagents: field({ schema: whole(0, MAX_CODEX_SUBAGENTS), fallback: DEFAULT_CODEX_SUBAGENTS, expect: `a whole number from 0 to ${MAX_CODEX_SUBAGENTS} (0 disables)`, scope: 'project' }),
  autoWake: field({ schema: bool, fallback: false, expect: 'true or false', scope: 'project', env: 'AGENT_BRIDGE_AUTO_WAKE' }),
  wakeOnDirect: field({ schema: bool, fallback: true, expect: 'true or false', scope: 'project', env: 'AGENT_BRIDGE_WAKE_ON_DIRECT' }),
  delivery: field({ schema: z.enum(['auto', 'channel', 'hooks']), fallback: 'auto', expect: 'one of auto, channel, hooks', scope: 'project', env: 'AGENT_BRIDGE_DELIVERY' }),
  lingerSec: field({ schema: whole(0, 3600), fallback: 300, expect: 'a whole number of seconds from 0 to 3600 (0 disables)', scope: 'project', env: 'AGENT_BRIDGE_LINGER_SEC' }),
  maxHops: field({ schema: whole(0, 100), fallback: 6, expect: 'a whole number from 0 to 100', scope: 'project', env: 'AGENT_BRIDGE_MAX_HOPS' }),

  // Broker settings of the global config (and its agent sections) only.
  maxJobs: field({ schema: whole(1, 50), fallback: 8, expect: 'a whole number from 1 to 50', scope: 'global', env: 'AGENT_BRIDGE_MAX_JOBS' }),
  maxDelegateDepth: field({ schema: whole(1, 3), fallback: 2, expect: 'a whole number from 1 to 3', scope: 'global', env: 'AGENT_BRIDGE_MAX_DELEGATE_DEPTH' }),
  autoApproveTools: field({
    schema: z.preprocess((v) => (typeof v === 'string' ? v.split(',') : v), z.array(z.string()).transform((list) => list.map((s) => s.trim()).filter((s) => s !== ''))),
    fallback: [],
    expect: 'a list of tool patterns (an array of strings, or a comma-separated string)',
    scope: 'global',
    env: 'AGENT_BRIDGE_AUTO_APPROVE_TOOLS',
  }),
  claudeBin: field({ schema: text, fallback: 'claude', expect: 'a non-empty command', scope: 'global', env: 'AGENT_BRIDGE_CLAUDE_BIN' }),
  codexBin: field({ schema: text, fallback: 'codex', expect: 'a non-empty command', scope: 'global', env: 'AGENT_BRIDGE_CODEX_BIN' }),
  opencodeBin: field({ schema: text, fallback: 'opencode', expect: 'a non-empty command', scope: 'global', env: 'AGENT_BRIDGE_OPENCODE_BIN' }),
  antigravityBin: field({ schema: text, fallback: 'agy', expect: 'a non-empty command', scope: 'global', env: 'AGENT_BRIDGE_ANTIGRAVITY_BIN' }),
  codexWakeRemote: field({ schema: text.nullable(), fallback: null, expect: 'a non-empty app-server address', scope: 'global', env: 'AGENT_BRIDGE_CODEX_WAKE_REMOTE' }),
  codexWakeRemoteAuthTokenEnv: field({ schema: text.nullable(), fallback: null, expect: 'the name of an environment variable', scope: 'global', env: 'AGENT_BRIDGE_CODEX_WAKE_REMOTE_AUTH_TOKEN_ENV' }),
  codexSandbox: field({ schema: z.enum(CODEX_SANDBOXES), fallback: 'read-only', expect: `one of ${CODEX_SANDBOXES.join(', ')}`, scope: 'global' }),
  codexWorktreeSandbox: field({ schema: z.enum(CODEX_SANDBOXES).nullable(), fallback: null, expect: `null or one of ${CODEX_SANDBOXES.join(', ')}`, scope: 'global' }),
  codexWorkspaceWriteNetworkAccess: field({ schema: bool.nullable(), fallback: null, expect: 'true, false or null', scope: 'global' }),
  codexWindowsSandbox: field({ schema: z.enum(['unelevated', 'elevated']), fallback: 'unelevated', expect: 'one of unelevated, elevated', scope: 'global' }),
  codexApprovalsReviewer: field({ schema: z.enum(['user', 'auto_review']), fallback: 'auto_review', expect: 'one of user, auto_review', scope: 'global' }),
  claudePermissionMode: field({
    schema: z.enum(['default', 'manual', 'acceptEdits', 'plan', 'auto', 'dontAsk', 'bypassPermissions']),
    fallback: 'default',
    expect: 'one of default, manual, acceptEdits, plan, auto, dontAsk, bypassPermissions',
    scope: 'global',
  }),
  opencodeAutoApprove: field({ schema: bool, fallback: false, expect: 'true or false', scope: 'global' }),
  jobCloseCleanup: field({ schema: bool, fallback: false, expect: 'true or false', scope: 'global' }),
  dashboard: field({ schema: bool, fallback: true, expect: 'true or false', scope: 'global', env: 'AGENT_BRIDGE_DASHBOARD' }),
  dashboardPort: field({ schema: whole(1, 65535), fallback: 4777, expect: 'a port number from 1 to 65535', scope: 'global' }),
  notifications: field({
    schema: z.strictObject({ approvals: bool.optional(), finish: bool.optional(), fail: bool.optional() }).transform((v) => ({ ...NOTIFICATIONS, ...v })),
    fallback: NOTIFICATIONS,
    expect: 'an object of approvals, finish, fail set to true or false',
    scope: 'global',
  }),
  historyAnswer: field({
    schema: z
      .strictObject({
        preference: z.array(z.enum(['claude', 'codex', 'opencode'])).min(1).optional(),
        claudeModel: model.optional(),
        codexModel: model.optional(),
        opencodeModel: model.nullable().optional(),
      })
      .transform((v) => ({ ...HISTORY_ANSWER, ...v, preference: [...new Set(v.preference ?? HISTORY_ANSWER.preference)] })),
    fallback: HISTORY_ANSWER,
    expect: `an object of preference (a list of ${AGENT_LIST}), claudeModel, codexModel and opencodeModel`,
    scope: 'global',
  }),
  network: field({
    // Broker federation; the broker validates the rest of it when it starts.
    schema: z.looseObject({ enabled: bool.optional(), name: z.string().optional(), bind: z.string().optional(), port: whole(0, 65535).optional(), discovery: bool.optional() }).nullable(),
    fallback: null,
    expect: 'an object (enabled, name, bind, port, discovery)',
    scope: 'global',
  }),

  // Shared machine resources and the history worker's switches: global top level only.
  resourceSlots: field({
    schema: z.record(z.string().regex(RESOURCE_NAME), z.number().int().min(1).max(100)),
    fallback: {},
    expect: 'an object of resource names (letters, digits, - and _) to whole capacities from 1 to 100',
    scope: 'machine',
  }),
  // The environment can only switch ingestion off (false or 0), never on.
  'history.ingest': field({ schema: bool, fallback: true, expect: 'true or false', scope: 'machine', env: INGEST_ENV }),
  'history.migration.ioBytesPerSecond': field({
    schema: whole(MIGRATION_IO_RANGE.min, MIGRATION_IO_RANGE.max),
    fallback: LIMITS.migrationIoBytesPerSecond,
    expect: `a whole number of bytes per second from ${MIGRATION_IO_RANGE.min} to ${MIGRATION_IO_RANGE.max}`,
    scope: 'machine',
    env: MIGRATION_IO_ENV,
  }),
  // The dashboard `serve` hosts (src/dashboard/launch.ts; flags of `agent-bridge dashboard` win over these).
  'history.dashboard.enabled': field({ schema: bool, fallback: true, expect: 'true or false', scope: 'machine' }),
  'history.dashboard.port': field({ schema: whole(0, 65535).nullable(), fallback: null, expect: 'a port number from 0 (any free port) to 65535', scope: 'machine' }),
  'history.dashboard.host': field({ schema: text.nullable(), fallback: null, expect: 'a non-empty host name or address', scope: 'machine' }),
} as const;

export type SettingName = keyof typeof FIELDS;
export type SettingValues = { readonly [K in SettingName]: z.output<(typeof FIELDS)[K]['schema']> };
export const SETTING_NAMES = Object.keys(FIELDS) as SettingName[];

/** native_subagents: true (Codex's default count), false (disabled: 0) or a count. */
export const NATIVE_SUBAGENTS = {
  schema: z.union([z.boolean().transform((on) => (on ? DEFAULT_CODEX_SUBAGENTS : 0)), FIELDS.codexSubagents.schema]),
  expect: `true, false (disables) or a whole number from 0 to ${MAX_CODEX_SUBAGENTS}`,
} as const;

/** Top-level keys that are not settings but are known (the broker's JSON store writes `version`). */
export const BOOKKEEPING_KEYS: ReadonlySet<string> = new Set(['version']);

export function isSettingsAgent(value: string): value is SettingsAgent {
  return (SETTINGS_AGENTS as readonly string[]).includes(value);
}
