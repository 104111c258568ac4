// Messages of the mirror actor (per-project read-only replicas,
// specification "Project folder and settings" and "Custom bridge homes"),
// and the status shapes `agent-bridge mirrors` and `status` show.

/**
 * Where a home's replicas live: in each project's `.agent-bridge/` folder
 * (the physical default bridge home only), or all in `<home>/project-mirrors/`
 * (any other bridge home; nothing is written into projects or their Git data).
 */
export type MirrorPlacement = 'project' | 'home';

/**
 * pending   known, not prepared yet (folder, Git exclusion and link checks run first)
 * syncing   prepared; records or metadata remain to copy
 * synced    the replica holds everything the central store holds for the project
 * deferred  cannot be written now (exclusion not ensured, folder missing, store busy…): retried on its own
 * refused   a link (symbolic link) on the replica's path: nothing is written through it; retried on its own
 */
export type ProjectMirrorState = 'pending' | 'syncing' | 'synced' | 'deferred' | 'refused';

export interface ProjectMirrorStatus {
  /** The canonical project path (the same identity capture assigns). */
  readonly project: string;
  /** `conversations-<first 16 hex of sha256(project)>.db`, where it lives (or would live). */
  readonly replica: string;
  readonly state: ProjectMirrorState;
  /** Why the project is deferred or refused (null otherwise). */
  readonly reason: string | null;
  /** The path a deferral or refusal is about (the link, the exclude file), or null. */
  readonly path: string | null;
  /** Conversations and raw records the replica holds. */
  readonly conversations: number;
  readonly records: number;
  /** Raw records known to be waiting to be copied (null before the project was first checked). */
  readonly behind: number | null;
  /** When the replica last had nothing left to copy (epoch ms), or null. */
  readonly syncedAt: number | null;
}

export type MirrorPhase =
  /** AGENT_BRIDGE_HISTORY_MIRRORS=off, or the history worker is not running here. */
  | 'off'
  /** Capture has not started yet (the legacy migration runs first). */
  | 'not-started'
  /** Pressure, the config switch or a cooldown holds the mirror between steps. */
  | 'paused'
  /** A central reindex is rebuilding documents: copying waits until it is done. */
  | 'waiting'
  | 'syncing'
  | 'synced';

export interface MirrorStatus {
  readonly phase: MirrorPhase;
  /** One line for people (null when there is nothing to add). */
  readonly detail?: string;
  readonly placement: MirrorPlacement | null;
  /** `<home>/project-mirrors` for a custom home; null when replicas live in the projects. */
  readonly directory: string | null;
  readonly projects: readonly ProjectMirrorStatus[];
  /** Projects that are plugin installation caches: infrastructure, kept central, no replica. */
  readonly infrastructure: number;
  readonly steps: { readonly count: number; readonly p50Ms: number; readonly p99Ms: number; readonly records: number };
  readonly lastError: string | null;
}

export interface MirrorStepResult {
  /** Raw records copied by this step. */
  readonly copied: number;
  /** Metadata ids (conversations) checked by this step. */
  readonly checked: number;
  /** Work remains that a following step can do now (deferred and refused projects are not work). */
  readonly more: boolean;
}

export type MirrorMessage =
  /** One bounded step: at most 8 raw records copied and 32 metadata ids checked. */
  | { readonly type: 'step' }
  | { readonly type: 'status' };

export interface MirrorReplies {
  step: MirrorStepResult;
  status: MirrorStatus;
}

/** The status of mirrors that do not run (off, not started yet). */
export function idleMirrorStatus(phase: 'off' | 'not-started', detail?: string): MirrorStatus {
  return {
    phase,
    ...(detail === undefined ? {} : { detail }),
    placement: null,
    directory: null,
    projects: [],
    infrastructure: 0,
    steps: { count: 0, p50Ms: 0, p99Ms: 0, records: 0 },
    lastError: null,
  };
}
