// `agent-bridge reindex` asks a running service (another process) to rebuild
// its derived search data by writing `<home>/history.reindex.request` with the
// request time. The service compares that time with the last reindex it
// finished (stored in history.db), so the file is never deleted and a request
// is carried out exactly once.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileSignature } from './file-signature.ts';
import { writeJsonFile } from './json-file.ts';
import type { HistoryPaths } from './paths.ts';

export function reindexRequestPath(paths: HistoryPaths): string {
  return join(paths.bridgeHome, 'history.reindex.request');
}

export function writeReindexRequest(paths: HistoryPaths, requestedAt: number): void {
  writeJsonFile(reindexRequestPath(paths), { requestedAt, pid: process.pid });
}

/** Reads the request file again only when its signature changed. */
export class ReindexRequests {
  private signature = '';
  private value: number | null = null;

  constructor(private readonly path: string) {}

  read(): number | null {
    const signature = fileSignature(this.path);
    if (signature === null) return null;
    if (signature !== this.signature) {
      this.signature = signature;
      try {
        const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as { requestedAt?: unknown };
        this.value = typeof parsed.requestedAt === 'number' ? parsed.requestedAt : null;
      } catch {
        this.value = null;
      }
    }
    return this.value;
  }
}
