// Small JSON files the CLI and a running service leave each other (requests,
// results, the published status): written whole to a temporary name beside
// the target and renamed over it, so a reader sees the old file or the new
// one, never half of one.

import { closeSync, fstatSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';

export function writeJsonFile(target: string, value: unknown, options: { readonly pretty?: boolean } = {}): void {
  writeTextFile(target, `${options.pretty === true ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`);
}

export function writeTextFile(target: string, text: string): void {
  const temp = `${target}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o600 });
  renameSync(temp, target);
}

/**
 * Rewrite `target` in place, padded with spaces to its present size: no new
 * disk blocks are needed, so it works on a full disk. False when the text
 * does not fit (or there is no file yet). A reader may see it half written.
 */
export function overwriteInPlace(target: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(target, 'r+');
  } catch {
    return false;
  }
  try {
    const size = fstatSync(fd).size;
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length > size) return false;
    const padded = Buffer.alloc(size, 0x20);
    bytes.copy(padded);
    writeSync(fd, padded, 0, size, 0);
    return true;
  } finally {
    closeSync(fd);
  }
}

/** The parsed file, or null when it is absent or not JSON. */
export function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return null;
  }
}
