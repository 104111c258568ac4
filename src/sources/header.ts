// A file's first line, cached by file identity so that discovery passes do
// not reread the beginning of every file (specification, "Headers are cached
// by file identity"). A missing or unfinished first line is not cached: the
// file may still be being written.

import { openSourceFile } from '../os/source-file.ts';
import type { Header } from './source-module.ts';
import { identityOf } from './identity.ts';

const HEAD_READ = 64 * 1024;
const SESSION_FIELD = /"sessionId"\s*:\s*"([^"]{1,128})"/;

export class HeaderCache {
  private readonly cache = new Map<string, Exclude<Header, null>>();

  constructor(private readonly capacity: number) {}

  async read(path: string): Promise<Header> {
    const handle = await openSourceFile(path);
    try {
      const identity = identityOf(await handle.stat());
      const cached = this.cache.get(identity);
      if (cached !== undefined) return cached;
      const buffer = Buffer.alloc(HEAD_READ);
      const { bytesRead } = await handle.read(buffer, 0, HEAD_READ, 0);
      const head = buffer.subarray(0, bytesRead);
      const newline = head.indexOf(10);
      let header: Header = null;
      if (newline !== -1) {
        try {
          const value: unknown = JSON.parse(head.toString('utf8', 0, newline));
          if (value !== null && typeof value === 'object' && !Array.isArray(value)) header = value as Record<string, unknown>;
        } catch {
          header = null;
        }
      } else if (bytesRead === HEAD_READ) {
        // A first line longer than the read: take the routing fields from its head.
        const session = SESSION_FIELD.exec(head.toString('utf8'));
        if (session !== null) header = { sessionId: session[1] };
      }
      if (header !== null) {
        if (this.cache.size >= this.capacity) this.cache.delete(this.cache.keys().next().value as string);
        this.cache.set(identity, header);
      }
      return header;
    } finally {
      await handle.close();
    }
  }
}
