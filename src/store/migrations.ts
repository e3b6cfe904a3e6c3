import type Database from 'better-sqlite3';
import { StepError } from '../errors/errors.js';

/**
 * One schema step. `version` is the `PRAGMA user_version` the database has once the step is applied;
 * steps are numbered 1, 2, 3, ... in order and are never edited once released: a change is a new step.
 */
export interface Migration {
  version: number;
  name: string;
  /** SQL script, or a function for steps that must move data in code. */
  up: string | ((db: Database.Database) => void);
}

// Migration 1: the whole schema. Conventions: snake_case, ISO 8601 text timestamps, booleans as 0/1,
// NULL for "absent" (never 0), free-form structures as *_json text.
const SCHEMA_V1 = `
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

/** Items in pairing order, so a key-ordered export (compare) walks an index instead of sorting a whole run. */
const PAIRING_INDEX = `CREATE INDEX items_pairing ON items (run_id, target, suite_item_id, repeat);`;

/**
 * Who runs or resumes a run right now: one row per held run, deleted on release. A row whose process is
 * gone (same host) or whose heartbeat stopped is taken over, so a crash never leaves a run locked.
 */
const RUN_LEASES = `CREATE TABLE run_leases (
  run_id       INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  holder       TEXT NOT NULL,
  pid          INTEGER NOT NULL,
  host         TEXT NOT NULL,
  acquired_at  TEXT NOT NULL,
  heartbeat_at TEXT NOT NULL
);`;

/**
 * Run groups (issue 15): a shard of a run split across machines carries its group and shard; the run
 * merged from them carries the group, the shard count, whether shards were missing, and which shard
 * runs it was made of (run_shards: what a repeated merge compares to be a no-op).
 */
const RUN_GROUPS = `
ALTER TABLE runs ADD COLUMN group_id TEXT;
ALTER TABLE runs ADD COLUMN group_label TEXT;
ALTER TABLE runs ADD COLUMN shard_index INTEGER;
ALTER TABLE runs ADD COLUMN shard_count INTEGER;
ALTER TABLE runs ADD COLUMN partial INTEGER NOT NULL DEFAULT 0 CHECK (partial IN (0, 1));
CREATE INDEX runs_group ON runs (group_id, shard_index);

CREATE TABLE run_shards (
  run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  shard_index   INTEGER NOT NULL,
  source_file   TEXT NOT NULL,
  source_run_id INTEGER NOT NULL,
  status        TEXT NOT NULL,
  started_at    TEXT NOT NULL,
  ended_at      TEXT,
  items         INTEGER NOT NULL,
  fingerprint   TEXT NOT NULL,
  PRIMARY KEY (run_id, shard_index)
);
`;

/** Figures of a reply that cannot be true (JSON list of descriptions); its stats are then not recorded. */
const STAT_ANOMALIES = `ALTER TABLE turns ADD COLUMN anomalies TEXT;`;

/**
 * Grading (issue 12): the judge's verdict per turn and rubric (question- or follow-up-level), every
 * citation checked with its reason, and the judge's replies cached by model, prompt and inputs so a
 * re-grade costs nothing. Judge tokens live here, apart from the service's credits in turns.
 */
/** Set when a target's replies carry the emulator's header: a standalone emulator is marked emulated too. */
const TARGET_EMULATOR = `ALTER TABLE targets ADD COLUMN emulator INTEGER NOT NULL DEFAULT 0;`;

const GRADING = `
CREATE TABLE grades (
  run_id            INTEGER NOT NULL,
  item_key          TEXT NOT NULL,
  turn              INTEGER NOT NULL,
  spec              TEXT NOT NULL CHECK (spec IN ('question', 'followup')),
  status            TEXT NOT NULL CHECK (status IN ('graded', 'unparseable', 'error', 'no_answer')),
  score             REAL,
  judge_pass        INTEGER CHECK (judge_pass IN (0, 1)),
  min_score         REAL NOT NULL,
  passed            INTEGER NOT NULL CHECK (passed IN (0, 1)),
  reasons_json      TEXT NOT NULL,
  error             TEXT,
  model             TEXT NOT NULL,
  prompt_version    TEXT NOT NULL,
  prompt_hash       TEXT NOT NULL,
  inputs_hash       TEXT NOT NULL,
  cached            INTEGER NOT NULL CHECK (cached IN (0, 1)),
  prompt_tokens     INTEGER,
  completion_tokens INTEGER,
  graded_at         TEXT NOT NULL,
  PRIMARY KEY (run_id, item_key, turn, spec),
  FOREIGN KEY (run_id, item_key, turn) REFERENCES turns (run_id, item_key, turn) ON DELETE CASCADE
);

CREATE TABLE citations (
  run_id     INTEGER NOT NULL,
  item_key   TEXT NOT NULL,
  turn       INTEGER NOT NULL,
  position   INTEGER NOT NULL,
  origin     TEXT NOT NULL CHECK (origin IN ('answer', 'source')),
  repository TEXT NOT NULL,
  path       TEXT,
  start_line INTEGER,
  end_line   INTEGER,
  link       TEXT NOT NULL,
  status     TEXT NOT NULL CHECK (status IN ('valid', 'invalid', 'unchecked')),
  reason     TEXT NOT NULL,
  checked_at TEXT NOT NULL,
  PRIMARY KEY (run_id, item_key, turn, position),
  FOREIGN KEY (run_id, item_key, turn) REFERENCES turns (run_id, item_key, turn) ON DELETE CASCADE
);
CREATE INDEX citations_status ON citations (run_id, status);

CREATE TABLE judge_cache (
  model             TEXT NOT NULL,
  prompt_hash       TEXT NOT NULL,
  inputs_hash       TEXT NOT NULL,
  content           TEXT NOT NULL,
  prompt_tokens     INTEGER,
  completion_tokens INTEGER,
  created_at        TEXT NOT NULL,
  PRIMARY KEY (model, prompt_hash, inputs_hash)
);
`;

/** Conversations with a run's question texts that no item owns: a send that landed after it was asked again. */
const UNOWNED_CONVERSATIONS = `
CREATE TABLE unowned_conversations (
  run_id           INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  target           TEXT NOT NULL,
  conversation_ref TEXT NOT NULL,
  text             TEXT NOT NULL,
  created_at       TEXT,
  found_at         TEXT NOT NULL,
  PRIMARY KEY (run_id, target, conversation_ref)
);
`;

/**
 * The texts of creates a run gave up (their outcome unknown), each with its earliest such send, and what the
 * end-of-run check for conversations no item owns made of them: a resume checks the earlier processes'
 * texts too, and a report says when a text was never checked.
 */
const LOST_CREATES = `
CREATE TABLE lost_creates (
  run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  target      TEXT NOT NULL,
  text        TEXT NOT NULL,
  sent_at     TEXT NOT NULL,
  checked_at  TEXT,
  check_error TEXT
);
CREATE INDEX lost_creates_run ON lost_creates (run_id, target);
`;

/**
 * When a process took the run over from a holder that had only gone silent (its heartbeat stale, maybe alive on
 * another host and still sending): from then on no resume can bound the earlier processes' sends by when it
 * took the run over.
 */
const SILENT_TAKEOVER = `ALTER TABLE runs ADD COLUMN silent_takeover_at TEXT;`;

/**
 * What a citation links to, and the revision it names (`@<rev>` of real answers' links; a commit link's
 * commit). Earlier rows are files or, without a path, repositories, at no revision.
 */
const CITATION_KINDS = `
ALTER TABLE citations ADD COLUMN kind TEXT NOT NULL DEFAULT 'file' CHECK (kind IN ('file', 'directory', 'commit', 'repository'));
ALTER TABLE citations ADD COLUMN revision TEXT;
UPDATE citations SET kind = 'repository' WHERE path IS NULL;
`;

/**
 * Nightly operations. `rerun_of`: the run `run --rerun-failed` took its items from. `nothing_asked`: a run
 * that ended without sending anything (every item skipped before it was sent, e.g. a refused token): never
 * `latest` for its label, shown apart in the history. `stop_reason`: `budget` for a run `--max-credits` stopped
 * (its verdict is exit code 10, not a signal's 4). `requeued_attempts`: a question or search dsbench
 * itself stopped when a run was interrupted (cancelled in the grace period), kept as it ended when a resume
 * runs its item again.
 */
const NIGHTLY_OPERATIONS = `
ALTER TABLE runs ADD COLUMN rerun_of INTEGER;
ALTER TABLE runs ADD COLUMN nothing_asked INTEGER NOT NULL DEFAULT 0 CHECK (nothing_asked IN (0, 1));
ALTER TABLE runs ADD COLUMN stop_reason TEXT;
CREATE TABLE requeued_attempts (
  run_id           INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  item_key         TEXT NOT NULL,
  attempt          INTEGER NOT NULL,
  target           TEXT NOT NULL,
  kind             TEXT NOT NULL,
  outcome          TEXT NOT NULL,
  message          TEXT,
  conversation_ref TEXT,
  turns            INTEGER NOT NULL,
  texts_json       TEXT NOT NULL,
  credits          REAL,
  started_at       TEXT,
  ended_at         TEXT,
  requeued_at      TEXT NOT NULL,
  PRIMARY KEY (run_id, item_key, attempt)
);
`;

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial schema', up: SCHEMA_V1 },
  { version: 2, name: 'index of items in pairing order', up: PAIRING_INDEX },
  { version: 3, name: 'run leases', up: RUN_LEASES },
  { version: 4, name: 'run groups: shards and merged runs', up: RUN_GROUPS },
  { version: 5, name: 'stat anomalies of a reply', up: STAT_ANOMALIES },
  { version: 6, name: 'grades, citations and the judge cache', up: GRADING },
  { version: 7, name: 'targets served by an emulator', up: TARGET_EMULATOR },
  { version: 8, name: 'conversations no item owns (given-up creates that landed)', up: UNOWNED_CONVERSATIONS },
  { version: 9, name: 'creates given up, and the end-of-run check of them', up: LOST_CREATES },
  { version: 10, name: 'takeovers from a silent holder', up: SILENT_TAKEOVER },
  { version: 11, name: 'citation kinds (file, directory, commit, repository) and revisions', up: CITATION_KINDS },
  { version: 12, name: 'reruns, runs that asked nothing, attempts stopped by an interruption', up: NIGHTLY_OPERATIONS },
];

export function latestVersion(migrations: readonly Migration[] = MIGRATIONS): number {
  return migrations.length;
}

export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the database up to the last step of `migrations`, each step in its own transaction, so an
 * interrupted upgrade leaves the database at the previous version, never half-way. The caller checks
 * first that the database is not newer than `migrations`.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number {
  checkOrder(migrations);
  for (const migration of migrations) {
    if (schemaVersion(db) >= migration.version) continue;
    applyOne(db, migration);
  }
  return schemaVersion(db);
}

function applyOne(db: Database.Database, migration: Migration): void {
  // Foreign keys cannot be toggled inside a transaction, and a step that rebuilds a table needs them
  // off; violations are checked before commit instead.
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
  db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      // Another process may have upgraded the file since we looked: re-check under the write lock.
      if (schemaVersion(db) >= migration.version) return;
      if (typeof migration.up === 'string') db.exec(migration.up);
      else migration.up(db);
      const violations = db.pragma('foreign_key_check') as unknown[];
      if (violations.length > 0) throw new Error(`it leaves ${violations.length} foreign key violations`);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  } catch (err) {
    throw new StepError(`upgrading the database to schema version ${migration.version} (${migration.name})`, err);
  } finally {
    db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
  }
}

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration list out of order: position ${i} has version ${m.version}`);
  });
}
