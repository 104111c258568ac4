// Where the dashboard may listen: loopback only. The specification says
// conversation content is never exported to other machines, so a
// non-loopback address is refused, with the reason, before anything binds.

import { HistoryError } from '../../protocols/errors.ts';

export const DEFAULT_PORT = 7433;
export const DEFAULT_HOST = '127.0.0.1';

export interface ListenAddress {
  /** The address given to listen(). */
  readonly listen: string;
  /** The host as it appears in the dashboard's URL. */
  readonly urlHost: string;
}

export function loopbackAddress(host: string): ListenAddress {
  const value = host.trim().toLowerCase();
  if (value === '127.0.0.1') return { listen: '127.0.0.1', urlHost: '127.0.0.1' };
  if (value === '::1' || value === '[::1]') return { listen: '::1', urlHost: '[::1]' };
  if (value === 'localhost') return { listen: '127.0.0.1', urlHost: 'localhost' };
  throw new HistoryError(
    'BAD_INPUT',
    `refusing to listen on ${JSON.stringify(host)}: the dashboard binds to loopback only (127.0.0.1, ::1 or localhost), because conversation content is never exported to other machines`,
  );
}
