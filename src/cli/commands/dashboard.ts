// `agent-bridge dashboard [--port N] [--host H] [--open]`: the authenticated
// local web UI over the history store, until stopped. Its first line of
// output is the address to open.

import { HistoryError } from '../../../protocols/errors.ts';
import { resolvePaths } from '../../config/paths.ts';
import { loopbackAddress } from '../../dashboard/host.ts';
import { dashboardSettings, openBrowser, resolveListen, urlLine } from '../../dashboard/launch.ts';
import { startDashboard } from '../../dashboard/server.ts';
import { intFlag, parse, UsageError } from '../args.ts';

export async function dashboard(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { port: { type: 'string' }, host: { type: 'string' }, open: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  const port = intFlag(flags.port, 'port', { min: 0, max: 65535 });
  const paths = resolvePaths();
  const listen = resolveListen(dashboardSettings(paths), { ...(flags.host === undefined ? {} : { host: flags.host }), ...(port === undefined ? {} : { port }) });
  try {
    loopbackAddress(listen.host);
  } catch (error) {
    throw new UsageError((error as HistoryError).message);
  }
  const running = await startDashboard({ host: listen.host, port: listen.port });
  process.stdout.write(urlLine(running.loginUrl));
  process.stderr.write(`agent-bridge dashboard: serving ${paths.bridgeHome} on ${running.url} (read-only; Ctrl-C stops)\n`);
  if (flags.open === true) openBrowser(running.loginUrl);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await running.close();
  return 0;
}
