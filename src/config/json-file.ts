// Small JSON files the CLI and a running service leave each other (requests,
// results, the published status): written whole to a temporary name beside
// the target and renamed over it, so a reader sees the old file or the new
// one, never half of one.

import { readFileSync, renameSync, writeFileSync } from 'node:fs';

export function writeJsonFile(target: string, value: unknown, options: { readonly pretty?: boolean } = {}): void {
  const temp = `${target}.${process.pid}.tmp`;
  writeFileSync(temp, `${options.pretty === true ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`, { mode: 0o600 });
  renameSync(temp, target);
}

/** The parsed file, or null when it is absent or not JSON. */
export function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return null;
  }
}
