// Real mounts for failure tests: a size-limited tmpfs (a disk that fills up,
// and gets space back by a remount) and bind mounts (a folder that is
// unmounted and comes back). They need CAP_SYS_ADMIN: root on the test
// machine and in CI. Where a plain mount is refused, the test file runs
// itself again inside a new user and mount namespace (`unshare -Urm`), where
// it may mount; where neither works the tests fail, saying why (a skipped
// test is not a passing one).

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NAMESPACE_MARK = 'ABH_IN_MOUNT_NAMESPACE';
const mounted: string[] = [];

const created: string[] = [];

// Mount points are made here, not by tempDir (whose cleanup would run into a mounted folder first).
process.on('exit', () => {
  for (const dir of mounted.reverse()) spawnSync('umount', ['-l', dir]);
  for (const dir of created) rmSync(dir, { recursive: true, force: true });
});

function mountPoint(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

function tryMount(): boolean {
  const dir = mountPoint('abh-mount-probe-');
  const probe = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
  if (probe.status !== 0) return false;
  spawnSync('umount', [dir]);
  return true;
}

/**
 * How this test file can mount: 'here', or 'namespace' when it must run
 * itself again under `unshare -Urm`. Throws when neither is possible.
 */
export function mountAccess(): 'here' | 'namespace' {
  if (tryMount()) return 'here';
  if (process.env[NAMESPACE_MARK] !== '1' && spawnSync('unshare', ['-Urm', 'true'], { stdio: 'ignore' }).status === 0) return 'namespace';
  throw new Error('these tests need to mount a tmpfs: run them as root (CAP_SYS_ADMIN), or where `unshare -Urm` (user namespaces) is allowed');
}

/** Run `testFile` again inside a user and mount namespace; returns its exit code and output. */
export function runInMountNamespace(testFile: string): { code: number | null; output: string } {
  const run = spawnSync('unshare', ['-Urm', process.execPath, '--import', 'tsx', '--test', testFile], {
    env: { ...process.env, [NAMESPACE_MARK]: '1' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: run.status, output: `${run.stdout}\n${run.stderr}` };
}

/** A new tmpfs of `bytes` at a fresh folder (unmounted when the process exits). */
export function tmpfs(bytes: number): string {
  const dir = mountPoint('abh-tmpfs-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir]);
  mounted.push(dir);
  return dir;
}

/** Give a tmpfs a new size (space comes back without anything being deleted). */
export function resizeTmpfs(dir: string, bytes: number): void {
  execFileSync('mount', ['-o', `remount,size=${bytes}`, dir]);
}

export function bindMount(source: string, target: string): void {
  mkdirSync(target, { recursive: true });
  execFileSync('mount', ['--bind', source, target]);
  mounted.push(target);
}

export function unmount(dir: string): void {
  execFileSync('umount', [dir]);
  const index = mounted.lastIndexOf(dir);
  if (index !== -1) mounted.splice(index, 1);
}


/** Unmount everything mounted here (before a test's temp folders are removed). */
export function unmountAll(): void {
  for (const dir of mounted.splice(0).reverse()) spawnSync('umount', ['-l', dir]);
}
