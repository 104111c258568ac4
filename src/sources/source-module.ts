// The interface every file-based source format implements (one module per
// format: claude.ts, codex.ts). Discovery hands each file it finds to the
// modules whose roots contain it; a module either claims the file with a
// SourcePlan or ignores it. Parsing lives beside classification in the same
// module (its LineDecoder), but runs in the parser pool.

import type { Agent, Kind, LineFormat } from '../../protocols/records.ts';
import type { HistoryPaths } from '../config/paths.ts';

/** CLI session and agent ids we accept as path components (no traversal, bounded). */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export interface ConversationSeed {
  readonly id: string;
  readonly agent: Agent;
  readonly session: string;
  /** Native parent known from the path; bytes may refine it later. */
  readonly parent: string | null;
  readonly kind: Kind;
  /** The agent-bridge job the conversation belongs to, when known from the path (run logs). */
  readonly job?: string | null;
}

/** A file the pipeline will capture. */
export interface SourcePlan {
  /** Stable source id: the absolute path at first registration (legacy-compatible). */
  readonly id: string;
  readonly path: string;
  readonly format: LineFormat;
  readonly conversation: ConversationSeed;
  /** Claude agent files: the agent the file itself belongs to. */
  readonly ownAgentId: string | null;
}

export interface DiscoveredFile {
  readonly path: string;
  /** Path components below the module root. */
  readonly relative: readonly string[];
}

/** The first line of a file, parsed (null when absent, unfinished or not JSON). */
export type Header = Record<string, unknown> | null;

export interface FileSourceModule {
  readonly agent: Agent;
  /** Directories discovery walks for this module. */
  roots(paths: HistoryPaths): readonly string[];
  classify(file: DiscoveredFile, readHeader: () => Promise<Header>): Promise<SourcePlan | null>;
}
