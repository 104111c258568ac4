// The interface every file-based source format implements (one module per
// format: claude.ts, codex.ts). Discovery hands each file it finds to the
// modules whose roots contain it; a module either claims the file with a
// SourcePlan or ignores it. Parsing lives beside classification in the same
// module (its LineDecoder), but runs in the parser pool.

import type { Agent } from '../../protocols/records.ts';
import type { SourcePlan } from '../../protocols/sources.ts';
import type { HistoryPaths } from '../config/paths.ts';

/** CLI session and agent ids we accept as path components (no traversal, bounded). */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export interface DiscoveredFile {
  readonly path: string;
  /** Path components below the module root. */
  readonly relative: readonly string[];
}

/**
 * The top-level scalar fields of a file's first line, parsed: numbers,
 * booleans and strings of at most HEADER_STRING_MAX characters (null when the
 * line is absent, unfinished or not a JSON object). Routing needs ids, never
 * a message body, and the headers are cached.
 */
export type Header = Readonly<Record<string, string | number | boolean>> | null;

export interface FileSourceModule {
  readonly agent: Agent;
  /** Directories discovery walks for this module. */
  roots(paths: HistoryPaths): readonly string[];
  classify(file: DiscoveredFile, readHeader: () => Promise<Header>): Promise<SourcePlan | null>;
}
