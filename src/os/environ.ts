// The exact bytes of an environment variable. Node decodes the environment as
// UTF-8 and replaces invalid bytes by U+FFFD, so a HOME such as /home/caf\xe9
// (a Latin-1 name) reads as /home/caf\ufffd, another path. On Linux the
// process's original environment is in /proc/self/environ; where a value
// holds U+FFFD and the bytes there decode to that same value without being
// valid UTF-8, those bytes are the real value.

import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';

let environ: Buffer | null | undefined;

function original(): Buffer | null {
  if (environ === undefined) {
    try {
      environ = readFileSync('/proc/self/environ');
    } catch {
      environ = null;
    }
  }
  return environ;
}

/** The bytes of `name` when `value` (its string form) lost some of them; null when the string is exact. */
export function lostEnvBytes(name: string, value: string | undefined): Buffer | null {
  if (value === undefined || !value.includes('\ufffd')) return null;
  const all = original();
  if (all === null) return null;
  const key = Buffer.from(`${name}=`);
  for (let start = 0; start < all.length; ) {
    let end = all.indexOf(0, start);
    if (end === -1) end = all.length;
    const entry = all.subarray(start, end);
    if (entry.subarray(0, key.length).equals(key)) {
      const bytes = entry.subarray(key.length);
      return !isUtf8(bytes) && bytes.toString('utf8') === value ? Buffer.from(bytes) : null;
    }
    start = end + 1;
  }
  return null;
}
