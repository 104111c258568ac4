// Every source root capture walks: found or not, readable (the root, every
// directory below it and every file), and how many files it holds.

import type { DoctorCheck } from '../../protocols/doctor.ts';
import { censusAll, type RootCensus } from '../ingest/root-census.ts';
import type { DoctorContext } from './check.ts';
import { currentUid, fail, ok } from './check.ts';

function plural(n: number, word: string, words = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : words}`;
}

export function rootCheck(census: RootCensus): DoctorCheck {
  const title = `${census.name} root ${census.root}`;
  const who = currentUid() === null ? 'this user' : `uid ${currentUid()}`;
  switch (census.state) {
    case 'missing':
      return ok('root', title, 'not found: nothing to capture there');
    case 'not-a-directory':
      return fail('root', title, 'exists but is not a directory: nothing below it can be captured', `move ${census.root} aside (capture expects a directory there)`);
    case 'unreadable':
      return fail('root', title, `cannot be listed (${census.code}): nothing below it is captured`, `make it readable for ${who}: chmod u+rx ${census.root} (or run agent-bridge as its owner)`);
    case 'found': {
      const links = census.links > 0 ? `, ${plural(census.links, 'symbolic link')} not followed` : '';
      const blocked = census.unreadableDirs + census.unreadableFiles;
      if (blocked === 0) return ok('root', title, `${plural(census.files, 'file')}${links}`);
      const first = census.unreadable[0];
      const parts = [census.unreadableDirs > 0 ? plural(census.unreadableDirs, 'directory', 'directories') : null, census.unreadableFiles > 0 ? plural(census.unreadableFiles, 'file') : null];
      return fail(
        'root',
        title,
        `${plural(census.files, 'file')}, but ${parts.filter((p) => p !== null).join(' and ')} cannot be read${first === undefined ? '' : ` (first: ${first.path}, ${first.code})`}: not captured`,
        `make them readable for ${who}: chmod -R u+rX ${census.root}`,
      );
    }
  }
}

export async function checkRoots(ctx: DoctorContext): Promise<DoctorCheck[]> {
  return (await censusAll(ctx.paths, { checkFiles: true })).map(rootCheck);
}
