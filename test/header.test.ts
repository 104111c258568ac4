// File headers (src/sources/header.ts): what classification reads from a
// file's first line, cached by file identity. What callers rely on: a header
// holds the first line's scalar fields (ids, numbers, flags) and never its
// bodies; a first line longer than the read still yields its session id; a
// missing or unfinished first line is not cached (the file is still being
// written); a file changed in place keeps its cached header (same identity),
// a replaced file is read again; and the cache keeps its most recently used
// headers only.

import assert from 'node:assert/strict';
import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HEADER_STRING_MAX, HeaderCache, headerOf } from '../src/sources/header.ts';
import { tempDir } from './helpers/home.ts';

const S1 = '72000000-0000-4000-8000-000000000001';
const S2 = '72000000-0000-4000-8000-000000000002';

function firstLine(session: string, extra: Record<string, unknown> = {}): string {
  return `${JSON.stringify({ parentUuid: null, isSidechain: true, sessionId: session, version: '2.0.30', turn: 3, message: { role: 'user', content: 'Explore the repository. '.repeat(200) }, ...extra })}\n`;
}

describe('file headers', () => {
  it('keep the first line’s scalar fields and leave its bodies out', () => {
    const long = 'x'.repeat(HEADER_STRING_MAX + 1);
    const edge = 'y'.repeat(HEADER_STRING_MAX);
    const header = headerOf(Buffer.from(firstLine(S1, { prompt: long, cwd: edge, list: [1, 2] }) + '{"next":1}\n'), false);
    // null, objects, arrays and strings over the bound are left out.
    assert.deepEqual(header, { isSidechain: true, sessionId: S1, version: '2.0.30', turn: 3, cwd: edge });
    assert.equal(headerOf(Buffer.from('[1,2]\n'), false), null);
    assert.equal(headerOf(Buffer.from('not json\n'), false), null);
    assert.equal(headerOf(Buffer.from('{"sessionId":"unfinished'), false), null);
  });

  it('take the session id from a first line longer than the read', async () => {
    const dir = tempDir();
    const path = join(dir, 'agent-long.jsonl');
    writeFileSync(path, `{"sessionId":"${S1}","message":{"content":"${'é'.repeat(70 * 1024)}"}}\n`);
    assert.deepEqual(await new HeaderCache(4).read(path), { sessionId: S1 });
  });

  it('are cached by identity: not while unfinished, kept when the file changes in place, read again when it is replaced', async () => {
    const dir = tempDir();
    const path = join(dir, 'agent-a.jsonl');
    const cache = new HeaderCache(4);
    writeFileSync(path, firstLine(S1).slice(0, 40));
    assert.equal(await cache.read(path), null);
    appendFileSync(path, firstLine(S1).slice(40));
    assert.equal((await cache.read(path))?.sessionId, S1);
    writeFileSync(path, firstLine(S2)); // in place: the same inode
    assert.equal((await cache.read(path))?.sessionId, S1);
    const other = join(dir, 'replacement');
    writeFileSync(other, firstLine(S2));
    renameSync(other, path); // another inode at the path
    assert.equal((await cache.read(path))?.sessionId, S2);
  });

  it('keep only the most recently used headers', async () => {
    const dir = tempDir();
    const cache = new HeaderCache(2);
    const paths = ['a', 'b', 'c'].map((name) => join(dir, `agent-${name}.jsonl`));
    for (const path of paths) writeFileSync(path, firstLine(S1));
    await cache.read(paths[0] as string);
    await cache.read(paths[1] as string);
    await cache.read(paths[0] as string); // a is now the most recent, b the least
    await cache.read(paths[2] as string); // b goes
    for (const path of paths) writeFileSync(path, firstLine(S2)); // in place: only an uncached header sees it
    const [a, b, c] = paths as [string, string, string];
    assert.equal((await cache.read(c))?.sessionId, S1);
    assert.equal((await cache.read(a))?.sessionId, S1);
    assert.equal((await cache.read(b))?.sessionId, S2);
  });
});
