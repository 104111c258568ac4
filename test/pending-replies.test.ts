import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HistoryError } from '../protocols/errors.ts';
import { PendingReplies } from '../src/service/pending-replies.ts';

test('replies settle the wait of their own id, in any order, and an unknown or settled id changes nothing', async () => {
  const replies = new PendingReplies<string>();
  const ids = [replies.nextId(), replies.nextId(), replies.nextId()];
  assert.equal(new Set(ids).size, 3);
  const waits = ids.map((id) => replies.wait(id));
  replies.resolve(ids[2] as number, 'third');
  replies.reject(ids[0] as number, new Error('first failed'));
  replies.resolve(ids[0] as number, 'too late');
  replies.resolve(999, 'nobody asked');
  replies.resolve(ids[1] as number, 'second');
  assert.equal(replies.size, 0);
  await assert.rejects(waits[0] as Promise<string>, /first failed/);
  assert.equal(await waits[1], 'second');
  assert.equal(await waits[2], 'third');
});

test('end fails every waiting reply and every later wait with the first error, and says which call ended it', async () => {
  const replies = new PendingReplies<number>();
  const waiting = [replies.wait(replies.nextId()), replies.wait(replies.nextId())];
  assert.equal(replies.size, 2);
  const first = new HistoryError('STOPPED', 'the thread exited with code 1');
  assert.equal(replies.end(first), true);
  assert.equal(replies.end(new HistoryError('STOPPED', 'a second report')), false);
  assert.equal(replies.ended, first);
  assert.equal(replies.size, 0);
  for (const wait of waiting) await assert.rejects(wait, (error) => error === first);
  await assert.rejects(replies.wait(replies.nextId()), (error) => error === first);
  assert.equal(replies.size, 0);
});
