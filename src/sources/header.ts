// A file's first line (its routing fields), cached by file identity so that
// discovery passes do not reread the beginning of every file (specification,
// "Headers are cached by file identity"). A missing or unfinished first line
// is not cached: the file may still be being written.

import { RecentMap } from '../cache/recent-map.ts';
import { openSourceFile } from '../os/source-file.ts';
import type { Header } from './source-module.ts';
import { identityOf } from './identity.ts';

const HEAD_READ = 64 * 1024;
const SESSION_FIELD = /"sessionId"\s*:\s*"([^"]{1,128})"/;
/**
 * Longer string fields are left out of a header. The cache holds up to
 * headerCacheEntries headers, and a whole parsed first line is as large as
 * the message it carries: a legacy Claude agent file's is its task's prompt,
 * up to the 64 KiB read. (On the scale bench's 8 GiB corpus, whose prompts
 * are short, 2,048 headers took 1.73 MiB of heap whole and 1.31 MiB so.)
 */
export const HEADER_STRING_MAX = 256;

/** The fields of a parsed first line that a header keeps. */
function scalarFields(line: Record<string, unknown>): Exclude<Header, null> {
  const kept: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(line)) {
    if (typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && value.length <= HEADER_STRING_MAX)) kept[key] = value;
  }
  return kept;
}

/**
 * The header of a file whose first bytes are `head`: its first line parsed,
 * or, when that line goes on past `head` (`cut`: `head` is all that was read),
 * the routing fields found in what was.
 */
export function headerOf(head: Buffer, cut: boolean): Header {
  const newline = head.indexOf(10);
  if (newline === -1) {
    const session = cut ? SESSION_FIELD.exec(head.toString('utf8')) : null;
    // Copied out of the match: V8 keeps a substring as a view of the whole decoded head, which the cache would hold.
    return session === null ? null : { sessionId: Buffer.from(session[1] as string).toString() };
  }
  try {
    const value: unknown = JSON.parse(head.toString('utf8', 0, newline));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? scalarFields(value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export class HeaderCache {
  private readonly cache: RecentMap<string, Exclude<Header, null>>;

  constructor(capacity: number) {
    this.cache = new RecentMap(capacity);
  }

  async read(path: string): Promise<Header> {
    const handle = await openSourceFile(path);
    try {
      const identity = identityOf(await handle.stat());
      const cached = this.cache.get(identity);
      if (cached !== undefined) return cached;
      const buffer = Buffer.alloc(HEAD_READ);
      const { bytesRead } = await handle.read(buffer, 0, HEAD_READ, 0);
      const header = headerOf(buffer.subarray(0, bytesRead), bytesRead === HEAD_READ);
      if (header !== null) this.cache.set(identity, header);
      return header;
    } finally {
      await handle.close();
    }
  }
}
