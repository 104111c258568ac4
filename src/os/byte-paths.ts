// Paths that are not valid UTF-8. Linux file names are bytes; Node's string
// form of such a name replaces the invalid bytes by U+FFFD, and a path built
// from that string names another file (or none). Where a path is not valid
// UTF-8 we carry it as a string of a form no real path has: `bytes:`
// followed by the path with every byte outside printable ASCII, and `%`,
// written as `%XX`. The form is exact (it maps back to the same bytes), is
// stored like any other path (source ids, conversation_sources.path), and
// fsPath() turns it into the Buffer that file system calls accept. Valid
// UTF-8 paths keep their plain string form, so nothing changes for them.

import { isUtf8 } from 'node:buffer';

const PREFIX = 'bytes:';
const SEP = 0x2f;

export function isBytesPath(path: string): boolean {
  return path.startsWith(PREFIX);
}

function escapeBytes(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) {
    out += byte >= 0x20 && byte < 0x7f && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The exact string form of a path given as bytes. */
export function pathFromBytes(bytes: Uint8Array): string {
  return isUtf8(bytes) ? Buffer.from(bytes).toString('utf8') : PREFIX + escapeBytes(bytes);
}

/** The bytes of a path in either form. */
export function bytesOfPath(path: string): Buffer {
  if (!isBytesPath(path)) return Buffer.from(path, 'utf8');
  const text = path.slice(PREFIX.length);
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '%' && /^[0-9A-F]{2}$/.test(text.slice(i + 1, i + 3))) {
      out.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      out.push(text.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(out);
}

/** What file system calls take for this path: the string itself, or the exact bytes. */
export function fsPath(path: string): string | Buffer {
  return isBytesPath(path) ? bytesOfPath(path) : path;
}

/** `parent/name` in exact form; `name` as bytes (a directory entry) or a string. */
export function childPath(parent: string, name: Uint8Array | string): string {
  const nameBytes = typeof name === 'string' ? Buffer.from(name, 'utf8') : name;
  if (!isBytesPath(parent) && isUtf8(nameBytes)) {
    const text = Buffer.from(nameBytes).toString('utf8');
    return parent.endsWith('/') ? parent + text : `${parent}/${text}`;
  }
  const base = bytesOfPath(parent);
  const joined = base[base.length - 1] === SEP ? Buffer.concat([base, nameBytes]) : Buffer.concat([base, Buffer.from([SEP]), nameBytes]);
  return pathFromBytes(joined);
}

/** A name's string form for classification (file-name patterns): lossy, never used to open anything. */
export function nameText(name: Uint8Array): string {
  return Buffer.from(name).toString('utf8');
}
