// Session bindings and learned aliases (specification, "Search and context
// retrieval": learned session aliases and native ancestry connect job filters
// to historical CLI records). Written by the history actor in a provider's
// batch transaction:
//   conversation_bindings  (session, agent) → cwd, job: a CLI session bound to
//                          a job; the search side's job filter joins it.
//   history_sessions       alias (peer name, job name, session id) → session, job.
//   conversations.job      set on every conversation of a bound session that
//                          has none yet, and on their native descendants, so a
//                          binding that arrives after the transcript still tags
//                          it; conversations created later take the job from
//                          conversation_bindings (ConversationIndex.ensure).
// A job's workdir also becomes the project of its conversations that have none.
// Bindings never remove a job already set: a handoff changes authority, not
// history identity.

import type { AliasRow, BindingRow } from '../../protocols/rows.ts';
import type { Db } from './open.ts';

export class BindingWriter {
  private readonly upsertBinding;
  private readonly upsertAlias;
  private readonly tagSession;
  private readonly tagJobProject;
  private readonly insertProject;

  constructor(db: Db) {
    this.upsertBinding = db.prepare(
      `INSERT INTO conversation_bindings (session, agent, cwd, job, pending) VALUES (?, ?, ?, ?, 0)
       ON CONFLICT(session, agent) DO UPDATE SET
         cwd = CASE WHEN excluded.cwd <> '' THEN excluded.cwd ELSE conversation_bindings.cwd END,
         job = coalesce(excluded.job, conversation_bindings.job),
         pending = 0`,
    );
    this.upsertAlias = db.prepare(
      `INSERT INTO history_sessions (alias, session, job) VALUES (?, ?, ?)
       ON CONFLICT(alias) DO UPDATE SET session = excluded.session, job = coalesce(excluded.job, history_sessions.job)`,
    );
    // The bound session's conversations (agent '' matches any agent) and their native descendants.
    this.tagSession = db.prepare(
      `WITH RECURSIVE tree(id) AS (
         SELECT id FROM conversations WHERE session = ? AND (? = '' OR agent = ?)
         UNION SELECT c.id FROM conversations c JOIN tree t ON c.parent = t.id)
       UPDATE conversations SET job = ? WHERE id IN (SELECT id FROM tree) AND job IS NULL`,
    );
    this.tagJobProject = db.prepare("UPDATE conversations SET project = ? WHERE job = ? AND project = ''");
    this.insertProject = db.prepare('INSERT OR IGNORE INTO conversation_projects (project) VALUES (?)');
  }

  /** Apply bindings and aliases; returns whether any conversation row may have changed. */
  apply(bindings: readonly BindingRow[], aliases: readonly AliasRow[]): boolean {
    let changed = false;
    for (const b of bindings) {
      if (b.session === '') continue;
      this.upsertBinding.run(b.session, b.agent, b.cwd, b.job);
      if (b.job === null) continue;
      changed = this.tagSession.run(b.session, b.agent, b.agent, b.job).changes > 0 || changed;
      if (b.project !== '') {
        changed = this.tagJobProject.run(b.project, b.job).changes > 0 || changed;
        this.insertProject.run(b.project);
      }
    }
    for (const a of aliases) {
      if (a.alias === '' || a.session === '') continue;
      this.upsertAlias.run(a.alias, a.session, a.job);
      if (a.job !== null) changed = this.tagSession.run(a.session, '', '', a.job).changes > 0 || changed;
    }
    return changed;
  }
}
