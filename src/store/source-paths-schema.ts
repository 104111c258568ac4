// history_source_paths: every path a file source has been captured at, with
// the time it was first seen there (the first registration, then each move).
// Append-only (INSERT OR IGNORE; nothing updates or deletes it): a source's
// path history survives any number of processes and moves, and `raw` can
// find a source by a path it had before it moved. One short row per path.
// Stores created before it get it, empty, when the writer opens them; their
// sources' current paths stay in conversation_sources.path.

export const SOURCE_PATHS_SQL = `
CREATE TABLE IF NOT EXISTS history_source_paths (
  source TEXT NOT NULL,
  path TEXT NOT NULL,
  first_seen INTEGER NOT NULL,
  PRIMARY KEY (source, path)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_history_source_paths_path ON history_source_paths(path);
`;
