// One config.json, read and validated against the settings schema
// (settings-fields.ts). The file is only ever read: never rewritten, never
// migrated. Reading it never throws and never stops anything:
//   - a valid field is in force;
//   - an invalid field is an error naming the file, the field and the reason,
//     and the field's last good value from this file stays in force (none yet:
//     the next layer, then the default, decides);
//   - a file that is not JSON, not an object or unreadable keeps all of its
//     last good values;
//   - an unknown field, or one this file may not set, is a warning and ignored;
//   - a deleted file has no values: the next layer, then the default, decides.
// ConfigFile re-reads only when the file's signature (size, mtime, inode)
// changes, so consulting it costs one stat. The validation itself is
// config-text.ts.

import { readFileSync, statSync } from 'node:fs';
import type { ConfigProblem } from '../../protocols/settings.ts';
import { type ConfigKind, type FileSettings, type Parsed, type Values, parseConfigText, slot } from './config-text.ts';
import { fileSignature } from './file-signature.ts';

export type { ConfigKind, FileSettings, FileValue } from './config-text.ts';

/** A config file larger than this is refused (its last good values stay): a settings file is a few KiB. */
const MAX_CONFIG_BYTES = 1024 * 1024;

function readText(path: string): { text: string } | { problem: string } | { gone: true } {
  try {
    const size = statSync(path).size;
    if (size > MAX_CONFIG_BYTES) return { problem: `is ${size} bytes; a config file larger than ${MAX_CONFIG_BYTES} bytes is not read` };
    return { text: readFileSync(path, 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { gone: true }; // deleted between the stat and the read
    return { problem: `cannot be read: ${code ?? (error as Error).message}` };
  }
}

/** The previous values, kept where the new read is invalid (everywhere when `invalid` is null). */
function keepLastGood(parsed: Parsed, previous: FileSettings): Values {
  const values: Values = new Map([...parsed.values].map(([section, map]) => [section, new Map(map)]));
  for (const [section, map] of previous.values) {
    for (const [name, old] of map) {
      if (parsed.invalid !== null && !parsed.invalid.has(slot(section, name))) continue;
      let into = values.get(section);
      if (into === undefined) values.set(section, (into = new Map()));
      into.set(name, { ...old, lastGood: true });
    }
  }
  return values;
}

function absent(path: string, kind: ConfigKind): FileSettings {
  return { path, kind, present: false, values: new Map(), problems: [] };
}

/** A config file, re-read when its signature changes; remembers last good values across reads. */
export class ConfigFile {
  private signature: string | null | undefined = undefined;
  private state: FileSettings;

  constructor(
    readonly path: string,
    readonly kind: ConfigKind,
  ) {
    this.state = absent(path, kind);
  }

  read(): FileSettings {
    const signature = fileSignature(this.path);
    if (signature === this.signature) return this.state;
    this.signature = signature;
    if (signature === null) {
      this.state = absent(this.path, this.kind);
      return this.state;
    }
    const read = readText(this.path);
    if ('gone' in read) {
      this.state = absent(this.path, this.kind);
      return this.state;
    }
    const parsed: Parsed =
      'problem' in read
        ? { values: new Map(), invalid: null, problems: [{ severity: 'error', file: this.path, field: '', reason: read.problem }] }
        : parseConfigText(read.text, this.path, this.kind);
    this.state = { path: this.path, kind: this.kind, present: true, values: keepLastGood(parsed, this.state), problems: parsed.problems };
    return this.state;
  }
}

/**
 * Validate one config file as it is now (no last good values): its problems,
 * errors and warnings, each naming the file, the field and the reason. An
 * absent file has none. For checks such as `agent-bridge doctor`.
 */
export function validateConfigFile(path: string, kind: ConfigKind = 'global'): ConfigProblem[] {
  return [...new ConfigFile(path, kind).read().problems];
}
