// The schema as first released (migration 1). Never edited: a change is a new step (schema-steps.ts).

// Migration 1: the whole schema. Conventions: snake_case, ISO 8601 text timestamps, booleans as 0/1,
// NULL for "absent" (never 0), free-form structures as *_json text.
export const SCHEMA_V1 = `
CREATE TABLE runs (
  id              INTEGER PRIMARY KEY,
  label           TEXT,
  suite_name      TEXT NOT NULL,
  suite_path      TEXT NOT NULL,
  suite_hash      TEXT NOT NULL,
  dsbench_version TEXT NOT NULL,
  options_json    TEXT NOT NULL,
  started_at      TEXT NOT NULL,
  ended_at        TEXT,
  status          TEXT NOT NULL
);
CREATE INDEX runs_label ON runs (label, id);

CREATE TABLE targets (
  run_id   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  name     TEXT NOT NULL,
  url      TEXT NOT NULL,
  api      TEXT NOT NULL,
  emulated INTEGER NOT NULL CHECK (emulated IN (0, 1)),
  PRIMARY KEY (run_id, name)
);

CREATE TABLE items (
  id                      INTEGER PRIMARY KEY,
  run_id                  INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  key                     TEXT NOT NULL,
  position                INTEGER NOT NULL,
  kind                    TEXT NOT NULL,
  target                  TEXT NOT NULL,
  suite_item_id           TEXT NOT NULL,
  repeat                  INTEGER NOT NULL,
  tags_json               TEXT NOT NULL,
  status                  TEXT NOT NULL,
  outcome                 TEXT,
  message                 TEXT,
  conversation_ref        TEXT,
  conversation_created_at TEXT,
  started_at              TEXT,
  ended_at                TEXT,
  deleted_at              TEXT,
  UNIQUE (run_id, key),
  UNIQUE (run_id, position),
  FOREIGN KEY (run_id, target) REFERENCES targets (run_id, name)
);
CREATE INDEX items_report ON items (run_id, target, kind, outcome);

CREATE TABLE turns (
  run_id                      INTEGER NOT NULL,
  item_key                    TEXT NOT NULL,
  turn                        INTEGER NOT NULL,
  text                        TEXT NOT NULL,
  question_id                 TEXT,
  state                       TEXT NOT NULL,
  error_code                  TEXT,
  error_raw_code              TEXT,
  error_message               TEXT,
  error_title                 TEXT,
  error_details               TEXT,
  error_retry_time            TEXT,
  client_error                TEXT,
  title                       TEXT,
  answer                      TEXT,
  sent_at                     TEXT,
  observed_end_at             TEXT,
  server_created_at           TEXT,
  server_updated_at           TEXT,
  server_ms                   REAL,
  server_ms_source            TEXT,
  wall_ms                     REAL,
  polls                       INTEGER NOT NULL,
  time_millis                 INTEGER,
  tool_calls                  INTEGER,
  total_input_tokens          INTEGER,
  cached_tokens               INTEGER,
  cache_creation_input_tokens INTEGER,
  prompt_tokens               INTEGER,
  completion_tokens           INTEGER,
  total_tokens                INTEGER,
  credits                     REAL,
  PRIMARY KEY (run_id, item_key, turn),
  FOREIGN KEY (run_id, item_key) REFERENCES items (run_id, key) ON DELETE CASCADE
);
CREATE INDEX turns_state ON turns (run_id, state, error_code);

CREATE TABLE sources (
  run_id   INTEGER NOT NULL,
  item_key TEXT NOT NULL,
  turn     INTEGER NOT NULL,
  position INTEGER NOT NULL,
  type     TEXT NOT NULL,
  link     TEXT NOT NULL,
  label    TEXT NOT NULL,
  PRIMARY KEY (run_id, item_key, turn, position),
  FOREIGN KEY (run_id, item_key, turn) REFERENCES turns (run_id, item_key, turn) ON DELETE CASCADE
);

CREATE TABLE suggested_followups (
  run_id   INTEGER NOT NULL,
  item_key TEXT NOT NULL,
  turn     INTEGER NOT NULL,
  position INTEGER NOT NULL,
  text     TEXT NOT NULL,
  PRIMARY KEY (run_id, item_key, turn, position),
  FOREIGN KEY (run_id, item_key, turn) REFERENCES turns (run_id, item_key, turn) ON DELETE CASCADE
);

CREATE TABLE quota_snapshots (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  target      TEXT NOT NULL,
  at          TEXT NOT NULL,
  total_quota REAL NOT NULL,
  quota_limit REAL NOT NULL,
  reset_time  TEXT
);
CREATE INDEX quota_snapshots_run ON quota_snapshots (run_id, target, at);

CREATE TABLE searches (
  run_id                 INTEGER NOT NULL,
  item_key               TEXT NOT NULL,
  query                  TEXT NOT NULL,
  params_json            TEXT NOT NULL,
  verdict                TEXT NOT NULL,
  match_count            INTEGER,
  counted                INTEGER NOT NULL,
  counted_by_type_json   TEXT NOT NULL,
  repositories           INTEGER NOT NULL,
  files                  INTEGER NOT NULL,
  repositories_count     INTEGER,
  exhaustive             INTEGER CHECK (exhaustive IN (0, 1)),
  duration_ms            REAL,
  wall_ms                REAL NOT NULL,
  time_to_first_event_ms REAL,
  time_to_first_match_ms REAL,
  skipped_json           TEXT NOT NULL,
  alert                  TEXT,
  error                  TEXT,
  http_status            INTEGER,
  PRIMARY KEY (run_id, item_key),
  FOREIGN KEY (run_id, item_key) REFERENCES items (run_id, key) ON DELETE CASCADE
);
CREATE INDEX searches_verdict ON searches (run_id, verdict);

CREATE TABLE expectations (
  run_id   INTEGER NOT NULL,
  item_key TEXT NOT NULL,
  position INTEGER NOT NULL,
  name     TEXT NOT NULL,
  passed   INTEGER NOT NULL CHECK (passed IN (0, 1)),
  reason   TEXT NOT NULL,
  turn     INTEGER,
  PRIMARY KEY (run_id, item_key, position),
  FOREIGN KEY (run_id, item_key) REFERENCES items (run_id, key) ON DELETE CASCADE
);
CREATE INDEX expectations_name ON expectations (run_id, name, passed);
`;
