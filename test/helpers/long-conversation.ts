// A home whose store holds one long Claude conversation (one JSONL line per
// record: user questions, assistant answers, Bash calls), written straight
// into a fresh history.db, for the dashboard's long-conversation test and
// bench/dashboard.

import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWriter } from '../../src/store/open.ts';

export const LONG_CONVERSATION = 'claude:long-conversation';

export function longConversationHome(records: number, parent = tmpdir()): string {
  const dir = mkdtempSync(join(parent, 'long-conversation-'));
  mkdirSync(join(dir, '.agent-bridge'), { recursive: true });
  const db = openWriter(join(dir, '.agent-bridge', 'history.db'));
  const insert = db.prepare('INSERT INTO conversation_records (source, generation, offset, conversation, at, raw, body) VALUES (?, 0, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    db.prepare("INSERT INTO conversations (id, agent, session, parent, project, job, kind) VALUES (?, 'claude', 'long-conversation', NULL, '/long', NULL, 'transcript')").run(LONG_CONVERSATION);
    let offset = 0;
    for (let i = 0; i < records; i++) {
      const line =
        i % 3 === 0
          ? { type: 'user', message: { role: 'user', content: `question ${i}: how does the scheduler book crate ${i}?` } }
          : i % 3 === 1
            ? { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: `answer ${i}: `.padEnd(400, 'the scheduler books per slot ') }] } }
            : { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `grep -rn crate${i} src/` } }] } };
      const raw = Buffer.from(`${JSON.stringify(line)}\n`);
      insert.run('/long/long-conversation.jsonl', offset, LONG_CONVERSATION, 1_773_000_000_000 + i * 1000, raw, '');
      offset += raw.length;
    }
  })();
  db.close();
  return dir;
}
