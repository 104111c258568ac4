// What capture retains of a chunk read from a file: the bytes themselves,
// except for an approval request, whose capability (pid, port, token) is
// blanked at the same length before anything is stored (src/bridge/files/
// capability.ts). Checks that compare a file with what was retained from it
// (spot checks, same-size rewrites, the scrubber) compare this form, over a
// whole retained record, so an approval is not taken for an edited file.

import type { LineFormat } from '../../protocols/records.ts';
import { blankCapability } from '../bridge/files/capability.ts';

/** Formats whose retained bytes are not the file's own: compare whole records, in retained form. */
export const ALTERED_FORMATS: ReadonlySet<LineFormat> = new Set<LineFormat>(['approval']);

/** `bytes` (one whole record's span of the file) as capture retains them; a copy when altered. */
export function retainedForm(format: LineFormat, bytes: Uint8Array): Uint8Array {
  if (!ALTERED_FORMATS.has(format)) return bytes;
  const copy = Uint8Array.from(bytes);
  blankCapability(copy);
  return copy;
}
