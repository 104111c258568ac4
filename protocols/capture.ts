// Progress of the capture backlog, as the history service measures it and
// publishes it in HistoryStatus (so `status`, `health`, `serve` and the
// dashboard all show the same figures). Bytes are those of file sources
// (transcripts, run logs, bridge spool files): the only sources whose size is
// known before they are read. OpenCode and bridge database rows count as
// sources in the backlog but carry no byte estimate.

export interface CaptureProgress {
  /** When the current backlog began (epoch ms); null while caught up. */
  readonly since: number | null;
  /** File bytes captured since the backlog began. */
  readonly capturedBytes: number;
  /** Captured since the backlog began plus still waiting: the backlog's size as known now. */
  readonly foundBytes: number;
  /** capturedBytes of foundBytes, 0..100; null while caught up or nothing is known in bytes. */
  readonly percent: number | null;
  /** File bytes captured per second over the last ~30 s (0 when nothing moved). */
  readonly bytesPerSecond: number;
  /** Waiting bytes at the measured rate; null until a rate is known, 0 once caught up. */
  readonly etaSeconds: number | null;
  /** Discovery is still walking the roots: more may be found, so foundBytes may grow. */
  readonly discovering: boolean;
  /** The backlog before this one, once caught up: when it began and ended, and the file bytes it captured. */
  readonly last: { readonly since: number; readonly until: number; readonly capturedBytes: number } | null;
}

export const CAUGHT_UP: CaptureProgress = {
  since: null,
  capturedBytes: 0,
  foundBytes: 0,
  percent: null,
  bytesPerSecond: 0,
  etaSeconds: 0,
  discovering: false,
  last: null,
};
