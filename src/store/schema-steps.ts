// The schema steps after the first (migrations 2 onwards), each a script released once and never edited.

/** Items in pairing order, so a key-ordered export (compare) walks an index instead of sorting a whole run. */
export const PAIRING_INDEX = `CREATE INDEX items_pairing ON items (run_id, target, suite_item_id, repeat);`;

/**
 * Who runs or resumes a run right now: one row per held run, deleted on release. A row whose process is
 * gone (same host) or whose heartbeat stopped is taken over, so a crash never leaves a run locked.
 */
export const RUN_LEASES = `CREATE TABLE run_leases (
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
export const RUN_GROUPS = `
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
export const STAT_ANOMALIES = `ALTER TABLE turns ADD COLUMN anomalies TEXT;`;

/**
 * Grading (issue 12): the judge's verdict per turn and rubric (question- or follow-up-level), every
 * citation checked with its reason, and the judge's replies cached by model, prompt and inputs so a
 * re-grade costs nothing. Judge tokens live here, apart from the service's credits in turns.
 */
/** Set when a target's replies carry the emulator's header: a standalone emulator is marked emulated too. */
export const TARGET_EMULATOR = `ALTER TABLE targets ADD COLUMN emulator INTEGER NOT NULL DEFAULT 0;`;

export const GRADING = `
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
export const UNOWNED_CONVERSATIONS = `
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
export const LOST_CREATES = `
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
export const SILENT_TAKEOVER = `ALTER TABLE runs ADD COLUMN silent_takeover_at TEXT;`;

/**
 * What a citation links to, and the revision it names (`@<rev>` of real answers' links; a commit link's
 * commit). Earlier rows are files or, without a path, repositories, at no revision.
 */
export const CITATION_KINDS = `
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
/**
 * Confirmations (`dsbench confirm`): a run of the questions re-asked to settle a comparison's gates is a run
 * of its own, `confirm_of` the run it confirms, so its items are their own kind of attempt: never counted as
 * the confirmed run's, never asked twice (a resume of it runs only what it has not), and shown apart.
 * `confirm_json`: the decision after the second look (the baseline, the levels, the verdict), once made.
 */
export const CONFIRMATIONS = `
ALTER TABLE runs ADD COLUMN confirm_of INTEGER;
ALTER TABLE runs ADD COLUMN confirm_json TEXT;
CREATE INDEX runs_confirm_of ON runs (confirm_of);
`;

export const NIGHTLY_OPERATIONS = `
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

/**
 * The product version each target reported at the run's start (GraphQL `site.productVersion`): null with
 * `product_version_error` when it could not be read, both null on runs recorded before this step. A resume
 * keeps the first version; `product_version_on_resume` is a different one a resume read. `definition_hash`:
 * a hash of what defines an item (a question's text, follow-ups and expectations; a search's query,
 * parameters and expectations), so a comparison can tell an edited question from its old self.
 */
export const PRODUCT_VERSIONS = `
ALTER TABLE targets ADD COLUMN product_version TEXT;
ALTER TABLE targets ADD COLUMN product_version_error TEXT;
ALTER TABLE targets ADD COLUMN product_version_on_resume TEXT;
ALTER TABLE items ADD COLUMN definition_hash TEXT;
`;

/**
 * Baselines chosen by name (`dsbench baseline bless`): `blessed:<name>` names the run. A name is one run;
 * blessing it again moves it. A deleted run takes its names with it. `forced`: blessed with --force,
 * although its verdict had not passed, it asked nothing or it was still running.
 */
export const BASELINES = `
CREATE TABLE baselines (
  name       TEXT PRIMARY KEY,
  run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  blessed_at TEXT NOT NULL,
  forced     INTEGER NOT NULL DEFAULT 0 CHECK (forced IN (0, 1))
);
CREATE INDEX baselines_run ON baselines (run_id);
`;

/**
 * The instance's traces of a run's requests (`run --trace`): each traced request's `X-Trace` id, its
 * `X-Trace-URL` made absolute (null when the reply gave none, or one that was not a URL: `note` says so),
 * the turn (null for a search) and the operation. A trace id is one request's: recorded once.
 */
export const TRACES = `
CREATE TABLE traces (
  run_id    INTEGER NOT NULL,
  item_key  TEXT NOT NULL,
  turn      INTEGER,
  operation TEXT NOT NULL CHECK (operation IN ('create', 'poll', 'follow-up', 'search')),
  trace_id  TEXT NOT NULL,
  url       TEXT,
  note      TEXT,
  PRIMARY KEY (run_id, item_key, trace_id),
  FOREIGN KEY (run_id, item_key) REFERENCES items (run_id, key) ON DELETE CASCADE
);
`;

/**
 * Each item's checks with their outcome in one index: "did every check of this item pass" (min(passed) per
 * item, read by the history, the run report and the quality views) is read from the index alone, without
 * a lookup of each check's row. Over 90 nights of 3,000 items it takes about 15% off the history's query.
 */
export const EXPECTATION_OUTCOMES = `
CREATE INDEX expectations_outcome ON expectations (run_id, item_key, passed);
`;

/**
 * The exit code a run's comparison with its `--baseline` decided (the second look's and the suite's
 * thresholds included), written when the run ends or is confirmed: the verdict the night ended with, which
 * a run's own items cannot give back (a night whose checks failed can be unchanged against its baseline,
 * one whose checks all passed can be slower than it). Null for a run compared with nothing.
 */
export const COMPARED_VERDICTS = `
ALTER TABLE runs ADD COLUMN compared_exit INTEGER;
`;
