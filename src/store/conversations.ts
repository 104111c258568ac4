// Conversation rows, as the writer sees them: created on first sight,
// refined as bytes reveal their project and native parent. The rows are
// metadata (not retained bytes): project and parent may be corrected, the
// id, agent and session never change. A conversation created after the
// broker bound its session to a job (conversation_bindings) takes that job.
// A conversation that records of another project join (a shared bridge
// thread) is associated with that project too (conversation_memberships):
// search's project filter and that project's replica include it.

import type { Agent, Kind } from '../../protocols/records.ts';
import type { ConversationSeed } from '../../protocols/sources.ts';
import { RecentMap } from '../cache/recent-map.ts';
import { jobConversation } from '../keys/bridge.ts';
import type { Db } from './open.ts';

export interface ConversationRow {
  readonly rowid: number;
  readonly id: string;
  readonly agent: Agent;
  readonly session: string;
  parent: string | null;
  project: string;
  job: string | null;
  readonly kind: Kind;
}

/** Writer-side cache over `conversations`; every method runs inside the caller's transaction. */
export class ConversationIndex {
  /** Rows as they are in the store, the most recently used `capacity` of them (a row this class changes, it changes in both). */
  private readonly cache: RecentMap<string, ConversationRow>;
  private readonly select;
  private readonly insert;
  private readonly updateParent;
  private readonly updateProject;
  private readonly insertProject;
  private readonly insertMembership;
  private readonly boundJob;

  constructor(db: Db, capacity: number) {
    this.cache = new RecentMap(capacity);
    this.select = db.prepare('SELECT rowid, id, agent, session, parent, project, job, kind FROM conversations WHERE id = ?');
    this.insert = db.prepare(
      'INSERT OR IGNORE INTO conversations (id, agent, session, parent, project, job, kind) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.boundJob = db.prepare(
      "SELECT job FROM conversation_bindings WHERE session = ? AND agent = ? AND job IS NOT NULL AND job <> '' LIMIT 1",
    ).pluck();
    this.updateParent = db.prepare('UPDATE conversations SET parent = ? WHERE id = ?');
    this.updateProject = db.prepare("UPDATE conversations SET project = ? WHERE id = ? AND project = ''");
    this.insertProject = db.prepare('INSERT OR IGNORE INTO conversation_projects (project) VALUES (?)');
    this.insertMembership = db.prepare('INSERT OR IGNORE INTO conversation_memberships (project, conversation) VALUES (?, ?)');
  }

  get(id: string): ConversationRow | undefined {
    let row = this.cache.get(id);
    if (row === undefined) {
      row = this.select.get(id) as ConversationRow | undefined;
      if (row !== undefined) this.cache.set(id, row);
    }
    return row;
  }

  /** The row for `seed.id`, inserting it if absent (an existing row is not changed). */
  ensure(seed: ConversationSeed, project = ''): ConversationRow {
    const existing = this.get(seed.id);
    if (existing !== undefined) return existing;
    // A session bound to a job before its transcript arrived: the late conversation takes the job.
    // A native child inherits its parent's job.
    const job =
      seed.job ??
      (seed.session === '' ? undefined : (this.boundJob.get(seed.session, seed.agent) as string | undefined)) ??
      (seed.parent === null ? undefined : this.get(seed.parent)?.job) ??
      null;
    // A conversation of a job without a project of its own takes the job's (bridge:job:<name>, from its workdir).
    if (project === '' && job !== null && seed.id !== jobConversation(job)) project = this.get(jobConversation(job))?.project ?? '';
    this.insert.run(seed.id, seed.agent, seed.session, seed.parent, project, job, seed.kind);
    if (project !== '') this.insertProject.run(project);
    const row = this.get(seed.id);
    if (row === undefined) throw new Error(`conversation ${seed.id} was not created`);
    return row;
  }

  setParent(id: string, parent: string): void {
    const row = this.get(id);
    if (row === undefined || row.parent === parent || id === parent) return;
    this.updateParent.run(parent, id);
    row.parent = parent;
  }

  /** Set the project of a conversation that has none yet. */
  setProject(id: string, project: string): void {
    const row = this.get(id);
    if (row === undefined || row.project !== '' || project === '') return;
    this.updateProject.run(project, id);
    this.insertProject.run(project);
    row.project = project;
  }

  /** Associate a conversation with a project other than its own (a record of that project joined it). */
  associate(id: string, project: string): void {
    const row = this.get(id);
    if (row === undefined || project === '' || row.project === project) return;
    this.insertMembership.run(project, id);
    this.insertProject.run(project);
  }

  /** Forget cached rows (after a rolled-back transaction). */
  clear(): void {
    this.cache.clear();
  }
}
