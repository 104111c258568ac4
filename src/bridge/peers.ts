// What the broker learned about its peers (docs/legacy-bridge-layout.md §2):
//   session_bindings(identity, session_id, learned_at)        v5
//   peer_names(identity, name, session_id, agent, learned_at) v6
// `identity` is a registration: a JSON array [agent, pid, process start, cwd,
// base peer name], or ["session", agent, sessionId]. From these rows come
// the session bindings and aliases written to history.db (src/store/bindings.ts)
// and a directory of peers (name → session, agent, cwd) that gives a
// message the project of its sender.

import type { AliasRow, BindingRow } from '../../protocols/rows.ts';
import { agentOf, jobNameIn } from '../keys/bridge.ts';

export interface Registration {
  readonly agent: string;
  readonly cwd: string;
  readonly name: string | null;
}

/** A registration identity, or null for the other identity forms. */
export function registrationOf(identity: unknown): Registration | null {
  if (typeof identity !== 'string') return null;
  let value: unknown;
  try {
    value = JSON.parse(identity);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length < 4 || value[0] === 'session') return null;
  const [agent, , , cwd, name] = value as unknown[];
  if (typeof agent !== 'string' || typeof cwd !== 'string') return null;
  return { agent, cwd, name: typeof name === 'string' && name !== '' ? name : null };
}

export interface SessionBindingRow {
  readonly identity: string;
  readonly session_id: string;
  readonly learned_at: number;
}

export interface PeerNameRow {
  readonly identity: string;
  readonly name: string;
  readonly session_id: string | null;
  readonly agent: string;
  readonly learned_at: number;
}

export interface Peer {
  readonly session: string | null;
  readonly agent: string;
  readonly cwd: string;
}

export interface Learned {
  readonly bindings: BindingRow[];
  readonly aliases: AliasRow[];
  /** Directory entries by peer name. */
  readonly peers: Array<readonly [string, Peer]>;
}

export function emptyLearned(): Learned {
  return { bindings: [], aliases: [], peers: [] };
}

/** A CLI session a registration was bound to: the session's agent and cwd; its name (a job's peer) names the job. */
export function learnSessionBinding(row: SessionBindingRow, into: Learned): void {
  const reg = registrationOf(row.identity);
  if (reg === null || typeof row.session_id !== 'string' || row.session_id === '') return;
  const job = jobNameIn(reg.name);
  into.bindings.push({ session: row.session_id, agent: agentOf(reg.agent), cwd: reg.cwd, job, project: '' });
  into.aliases.push({ alias: row.session_id, session: row.session_id, job });
  if (reg.name !== null) {
    into.aliases.push({ alias: reg.name, session: row.session_id, job });
    into.peers.push([reg.name, { session: row.session_id, agent: reg.agent, cwd: reg.cwd }]);
  }
}

/** A peer name the broker learned: an alias of its session; a job peer's name binds the session to the job. */
export function learnPeerName(row: PeerNameRow, into: Learned): void {
  if (typeof row.name !== 'string' || row.name === '') return;
  const reg = registrationOf(row.identity);
  const cwd = reg?.cwd ?? '';
  const job = jobNameIn(row.name);
  into.peers.push([row.name, { session: row.session_id, agent: row.agent, cwd }]);
  if (typeof row.session_id !== 'string' || row.session_id === '') return;
  into.aliases.push({ alias: row.name, session: row.session_id, job });
  if (job !== null || cwd !== '') into.bindings.push({ session: row.session_id, agent: agentOf(row.agent), cwd, job, project: '' });
}

/** Peers by name, and job workdirs by job name: where a message's sender works. */
export class PeerDirectory {
  private readonly peers = new Map<string, Peer>();
  private readonly jobs = new Map<string, string>();

  constructor(private readonly capacity = 65_536) {}

  private bounded<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    if (map.size >= this.capacity) map.delete(map.keys().next().value as string);
    map.set(key, value);
  }

  learnPeer(name: string, peer: Peer): void {
    this.bounded(this.peers, name, peer);
  }

  learnJob(name: string, workdir: string): void {
    this.bounded(this.jobs, name, workdir);
  }

  /** The working directory of a sender: a job's workdir for a job (report or job peer), else the peer's cwd. */
  cwdOf(senderName: string): string | null {
    const job = this.jobs.get(senderName);
    if (job !== undefined) return job;
    const cwd = this.peers.get(senderName)?.cwd;
    return cwd !== undefined && cwd !== '' ? cwd : null;
  }
}
