// Job run logs and run metadata under <bridge home>/runs (any depth, so
// runs/archive/ too), docs/legacy-bridge-layout.md §5:
//   <YYYY-MM-DD-HH-MM-SS>-<job>.log          the run log (plain text lines)
//   <YYYY-MM-DD-HH-MM-SS>-<job>.json         its metadata (one JSON document)
//   …​.log-<ms>-<uuid>, …​.json-<ms>-<uuid>    the older rotation/archive names
// Both files of a run belong to conversation bridge:run:<name without the
// extension and rotation suffix>, kind run. A `.log.1` is not a name
// agent-bridge writes (the 0.29 discovery pattern ignores it), so it is not a
// run source. Run logs grow while the job runs: they are ordinary file
// sources (generations, offsets, settled tails), parsed in the pool.

import type { ParseResult, ParseTask } from '../../../protocols/records.ts';
import { extractText } from '../../text/extract.ts';
import { parseTextChunk } from '../../sources/jsonl.ts';
import type { FileSourceModule } from '../../sources/source-module.ts';
import type { SourcePlan } from '../../../protocols/sources.ts';
import { agentInName, runConversation } from '../../keys/bridge.ts';
import { documentChunk } from './document.ts';

const RUN_FILE = /^(.+)\.(log|json)(?:-\d+-[\w-]+)?$/;
const STAMP = /^\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-(.+)$/;

export interface RunName {
  /** The run: the file name without extension and rotation suffix. */
  readonly run: string;
  readonly kind: 'log' | 'json';
  /** The job named after the start time, when the name has one. */
  readonly job: string | null;
}

export function parseRunName(name: string): RunName | null {
  const match = RUN_FILE.exec(name);
  if (match === null) return null;
  const run = match[1] as string;
  return { run, kind: match[2] as 'log' | 'json', job: STAMP.exec(run)?.[1] ?? null };
}

export const bridgeRunSource: FileSourceModule = {
  agent: 'other',
  roots: (paths) => [`${paths.bridgeHome}/runs`],
  async classify(file): Promise<SourcePlan | null> {
    const name = file.relative[file.relative.length - 1] as string;
    const parsed = parseRunName(name);
    if (parsed === null) return null;
    return {
      id: file.path,
      path: file.path,
      format: parsed.kind === 'log' ? 'run-log' : 'run-meta',
      ownAgentId: null,
      conversation: { id: runConversation(parsed.run), agent: agentInName(name), session: '', parent: null, kind: 'run', job: parsed.job },
    };
  },
};

/** Metadata fields that are not worth searching (ids, versions, times, paths). */
const META_SKIP = new Set([
  'metadataVersion', 'bridgeVersion', 'version', 'jobStartedAt', 'etaAt', 'updatedAt', 'startedAt', 'finishedAt', 'byCwd', 'workdir',
  'repoRoot', 'branchHead', 'baseBranch', 'session', 'continues', 'access', 'permission', 'effort', 'byAgent', 'percent',
]);

/** A run log chunk: plain text, one document per chunk. */
export function parseRunLogChunk(task: ParseTask): ParseResult {
  return parseTextChunk(task);
}

/** A run's metadata document: its title, job, owner and notes; its workdir names the project. */
export function parseRunMetaChunk(task: ParseTask): ParseResult {
  return documentChunk(task, (doc) => ({
    text: extractText(doc, { skipKeys: META_SKIP }),
    at: typeof doc.jobStartedAt === 'number' ? doc.jobStartedAt : null,
    cwd: typeof doc.workdir === 'string' && doc.workdir !== '' ? doc.workdir : null,
  }));
}
