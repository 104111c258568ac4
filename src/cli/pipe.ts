// A reader that stops early (`agent-bridge conversation … --json | head`)
// closes the pipe; the next write to stdout then fails with EPIPE. That is
// the reader's choice, not our failure: the command ends at once, quietly,
// with exit code 0, instead of an unhandled 'error' event and a stack trace.
// A closed stderr is ignored (a running service keeps capturing); any other
// error on stdout is reported in one line.

/** Install once, before a command writes anything. */
export function endQuietlyOnClosedPipe(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    process.stderr.write(`agent-bridge: cannot write to stdout: ${error.message}\n`);
    process.exit(1);
  });
  process.stderr.on('error', () => undefined);
}
