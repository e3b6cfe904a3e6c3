import type Database from 'better-sqlite3';
import { isPartialAnswer } from '../model/partial.js';
import { ExitCode } from '../errors/exit-codes.js';
import { emptyTargetTally, type RunTally } from '../model/tally.js';
import type { ItemKind, ItemStatus } from '../model/item.js';
import type { RunStatus } from '../model/run.js';
import { requeuedAttempts } from './requeue.js';
import { failureClass, runExitCode, type VerdictOutcome } from '../model/verdict.js';

// Read side for reports. Rows use camelCase and `null` for absent values (never 0). The iterators
// stream rows from SQLite; while one is open, this connection cannot write (better-sqlite3 rule).

export type RunSelector = number | 'latest' | string;

export interface RunRecord {
  id: number;
  label: string | null;
  suiteName: string;
  suitePath: string;
  suiteHash: string;
  dsbenchVersion: string;
  options: Record<string, unknown>;
  startedAt: string;
  endedAt: string | null;
  status: RunStatus;
  /** Set on a shard of a split run and on the run merged from its shards. */
  split: RunSplit | null;
  /** The run `run --rerun-failed` took this one's items from. */
  rerunOf: number | null;
  /** It ended having sent nothing: every item skipped before it was sent (see findRunOffset). */
  nothingAsked: boolean;
}

/** How a run belongs to a run split over machines (`dsbench run --shard`, `dsbench merge`). */
export interface RunSplit {
  groupId: string;
  groupLabel: string;
  /** This run's shard (1-based); null on the run merged from the shards. */
  shardIndex: number | null;
  shardCount: number;
  /** The shards the run holds: its own, or those merged into it. */
  shards: number[];
  /** Merged with shards missing (`--allow-partial`). */
  partial: boolean;
}

interface SplitColumns {
  groupId: string | null;
  groupLabel: string | null;
  shardIndex: number | null;
  shardCount: number | null;
  partial: number;
}

/** Replaces a run row's split columns by its `split`. */
function withSplit<T extends SplitColumns & { id: number }>(db: Database.Database, row: T): Omit<T, keyof SplitColumns> & { split: RunSplit | null } {
  const { groupId, groupLabel, shardIndex, shardCount, partial, ...rest } = row;
  if (groupId === null || shardCount === null) return { ...rest, split: null };
  const shards =
    shardIndex !== null ? [shardIndex] : (db.prepare('SELECT shard_index FROM run_shards WHERE run_id = ? ORDER BY shard_index').pluck().all(row.id) as number[]);
  return { ...rest, split: { groupId, groupLabel: groupLabel ?? '', shardIndex, shardCount, shards, partial: partial === 1 } };
}

export interface RunSummary {
  id: number;
  label: string | null;
  suiteName: string;
  targets: string[];
  /** Some target was the embedded emulator: its answers are emulated, not an instance's. */
  emulated: boolean;
  startedAt: string;
  endedAt: string | null;
  status: RunStatus;
  items: number;
  /** Items by outcome; unfinished items count under their status (`pending`, `running`). */
  outcomes: Record<string, number>;
  /** Sum of credits over all turns; null when no turn reported any. */
  credits: number | null;
  /** Expectations checked over every item of the run. */
  checks: { passed: number; failed: number };
  /** The exit code the run's items, status and checks call for (the one verdict function of src/runner/verdict.ts). */
  exitCode: ExitCode;
  split: RunSplit | null;
  /** The run `run --rerun-failed` took this one's items from. */
  rerunOf: number | null;
  /** It ended having sent nothing: every item skipped before it was sent. */
  nothingAsked: boolean;
}


export interface ItemColumns {
  itemKey: string;
  kind: ItemKind;
  target: string;
  suiteItemId: string;
  repeat: number;
  tags: string[];
  itemStatus: ItemStatus;
  outcome: string | null;
}

export interface TurnRow extends ItemColumns {
  conversationRef: string | null;
  turn: number;
  text: string;
  questionId: string | null;
  state: string;
  errorCode: string | null;
  errorRawCode: string | null;
  errorMessage: string | null;
  errorTitle: string | null;
  errorDetails: string | null;
  errorRetryTime: string | null;
  clientError: string | null;
  title: string | null;
  answer: string | null;
  /** The answer came with an error state (or a cancel): what was written before it stopped. */
  partial: boolean;
  sentAt: string | null;
  observedEndAt: string | null;
  serverCreatedAt: string | null;
  serverUpdatedAt: string | null;
  serverMs: number | null;
  serverMsSource: string | null;
  wallMs: number | null;
  polls: number;
  timeMillis: number | null;
  toolCalls: number | null;
  totalInputTokens: number | null;
  cachedTokens: number | null;
  cacheCreationInputTokens: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  totalTokens: number | null;
  credits: number | null;
}

export interface SearchRow extends ItemColumns {
  query: string;
  params: Record<string, unknown>;
  verdict: string;
  matchCount: number | null;
  counted: number;
  countedByType: Record<string, number>;
  repositories: number;
  files: number;
  repositoriesCount: number | null;
  exhaustive: boolean | null;
  durationMs: number | null;
  wallMs: number;
  timeToFirstEventMs: number | null;
  timeToFirstMatchMs: number | null;
  skipped: Array<{ reason: string; title?: string; severity?: string }>;
  alert: string | null;
  error: string | null;
  httpStatus: number | null;
}

export interface ExpectationSummary {
  total: number;
  passed: number;
  failed: number;
  byName: Array<{ name: string; total: number; passed: number; failed: number }>;
  failures: Array<{ itemKey: string; target: string; suiteItemId: string; repeat: number; name: string; reason: string; turn: number | null }>;
}

const ITEM_COLUMNS = `i.key AS itemKey, i.kind, i.target, i.suite_item_id AS suiteItemId, i.repeat, i.tags_json AS tags,
  i.status AS itemStatus, i.outcome`;

const RUN_COLUMNS = `id, label, suite_name AS suiteName, suite_path AS suitePath, suite_hash AS suiteHash,
  dsbench_version AS dsbenchVersion, options_json AS options, started_at AS startedAt, ended_at AS endedAt, status,
  group_id AS groupId, group_label AS groupLabel, shard_index AS shardIndex, shard_count AS shardCount, partial,
  rerun_of AS rerunOf, nothing_asked AS nothingAsked`;

/** `12` selects run 12, `latest` the newest run, anything else the newest run with that label. */
export function parseRunSelector(text: string): RunSelector {
  return /^\d+$/.test(text) ? Number(text) : text;
}

export function findRun(db: Database.Database, selector: RunSelector): RunRecord | undefined {
  if (typeof selector !== 'number') return findRunOffset(db, selector === 'latest' ? {} : { label: selector }, 0);
  const row = db.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`).get(selector);
  return row === undefined ? undefined : runRecord(db, row);
}

function runRecord(db: Database.Database, row: unknown): RunRecord {
  const run = withSplit(db, row as Omit<RunRecord, 'split' | 'options' | 'nothingAsked'> & SplitColumns & { options: string; nothingAsked: number });
  return { ...run, options: JSON.parse(run.options) as Record<string, unknown>, nothingAsked: run.nothingAsked === 1 };
}

/** A run as a trend names it. */
export interface RunHead {
  id: number;
  label: string | null;
  suiteName: string;
  startedAt: string;
  endedAt: string | null;
  status: RunStatus;
  /** It ended having sent nothing: shown apart from the trend. */
  nothingAsked: boolean;
}

/** The newest `limit` runs of a suite (up to run `through`), newest first: the runs table alone, no pass over their items. */
export function suiteRuns(db: Database.Database, suite: string, limit: number, through?: number): RunHead[] {
  const rows = db
    .prepare(
      `SELECT id, label, suite_name AS suiteName, started_at AS startedAt, ended_at AS endedAt, status, nothing_asked AS nothingAsked FROM runs
      WHERE suite_name = @suite AND (@through IS NULL OR id <= @through) ORDER BY id DESC LIMIT @limit`,
    )
    .all({ suite, through: through ?? null, limit }) as Array<Omit<RunHead, 'nothingAsked'> & { nothingAsked: number }>;
  return rows.map((r) => ({ ...r, nothingAsked: r.nothingAsked === 1 }));
}

/** Newest first; optionally only the runs of one suite. */
export function listRuns(db: Database.Database, options: { limit?: number | undefined; suite?: string | undefined } = {}): RunSummary[] {
  const rows = db
    .prepare(
      `SELECT r.id, r.label, r.suite_name AS suiteName, r.started_at AS startedAt, r.ended_at AS endedAt, r.status,
        r.group_id AS groupId, r.group_label AS groupLabel, r.shard_index AS shardIndex, r.shard_count AS shardCount, r.partial,
        r.rerun_of AS rerunOf, r.nothing_asked AS nothingAsked, r.stop_reason AS stopReason,
        (SELECT json_group_array(name) FROM (SELECT name FROM targets WHERE run_id = r.id ORDER BY rowid)) AS targets,
        (SELECT coalesce(max(max(emulated, emulator)), 0) FROM targets WHERE run_id = r.id) AS emulated,
        (SELECT count(*) FROM items WHERE run_id = r.id) AS items,
        (SELECT json_group_object(k, n) FROM
          (SELECT coalesce(outcome, status) AS k, count(*) AS n FROM items WHERE run_id = r.id GROUP BY k)) AS outcomes,
        (SELECT sum(credits) FROM turns WHERE run_id = r.id) AS credits
      FROM runs r WHERE (@suite IS NULL OR r.suite_name = @suite) ORDER BY r.id DESC LIMIT @limit`,
    )
    .all({ suite: options.suite ?? null, limit: options.limit ?? -1 }) as Array<
    Omit<RunSummary, 'checks' | 'exitCode' | 'split' | 'emulated' | 'nothingAsked'> &
      SplitColumns & { targets: string; outcomes: string; emulated: number; nothingAsked: number; stopReason: string | null }
  >;
  return rows.map(({ stopReason, ...row }) => {
    const r = withSplit(db, row);
    const tally = runTally(db, r.id);
    return {
      ...r,
      targets: JSON.parse(r.targets) as string[],
      emulated: r.emulated === 1,
      nothingAsked: r.nothingAsked === 1,
      outcomes: JSON.parse(r.outcomes) as Record<string, number>,
      checks: tally.checks,
      exitCode: storedRunExitCode(r.status, tally, stopReason),
    };
  });
}

/** The verdict of a recorded run: what `dsbench run` ended (or would have ended) with. */
export function storedRunExitCode(status: RunStatus, tally: RunTally, stopReason: string | null = null): ExitCode {
  const budget = status === 'aborted' && stopReason === 'budget';
  return runExitCode({
    signalled: status === 'aborted' && !budget,
    // A run is marked failed when a target was unreachable or refused the token.
    stops: status === 'failed' ? [ExitCode.unreachable] : budget ? [ExitCode.budgetExceeded] : [],
    items: tally.items,
    failedChecks: tally.checks.failed,
  });
}

/** Items by target, kind and outcome, credits and checks of one run: one pass over its items. */
export function runTally(db: Database.Database, runId: number): RunTally {
  const rows = db
    .prepare(
      // Each item's checks summed once (a join on one pass over the run's expectations, not correlated
      // subqueries that the outer query would evaluate again for every reference), then grouped by whether
      // they all held, as failureClass reads them.
      `SELECT target, kind, outcome, httpStatus, count(*) AS count, sum(credits) AS credits, sum(passed) AS passed, sum(failed) AS failed,
        passed > 0 AND failed = 0 AS checksHeld
      FROM (SELECT i.target, i.kind, coalesce(i.outcome, i.status) AS outcome, s.http_status AS httpStatus, i.position,
          (SELECT sum(t.credits) FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key) AS credits,
          coalesce(e.passed, 0) AS passed, coalesce(e.failed, 0) AS failed
        FROM items i LEFT JOIN searches s ON s.run_id = i.run_id AND s.item_key = i.key
        LEFT JOIN (SELECT item_key, sum(passed) AS passed, count(*) - sum(passed) AS failed FROM expectations WHERE run_id = @runId GROUP BY item_key) e
          ON e.item_key = i.key
        WHERE i.run_id = @runId)
      GROUP BY target, kind, outcome, httpStatus, checksHeld ORDER BY min(position)`,
    )
    .all({ runId }) as Array<{ target: string; kind: ItemKind; outcome: VerdictOutcome; httpStatus: number | null; count: number; credits: number | null; passed: number; failed: number; checksHeld: 0 | 1 }>;
  const tally: RunTally = { targets: {}, items: [], checks: { passed: 0, failed: 0 } };
  for (const row of rows) {
    const t = (tally.targets[row.target] ??= emptyTargetTally());
    const k = row.kind === 'search' ? t.searches : t.questions;
    t.counts[row.outcome] = (t.counts[row.outcome] ?? 0) + row.count;
    k.counts[row.outcome] = (k.counts[row.outcome] ?? 0) + row.count;
    if (failureClass(row.outcome, { passed: row.checksHeld, failed: 1 - row.checksHeld }) === 'expected') k.expected[row.outcome] = (k.expected[row.outcome] ?? 0) + row.count;
    if (row.credits !== null) t.credits = (t.credits ?? 0) + row.credits;
    for (const into of [t, k, tally.checks]) {
      into.passed += row.passed;
      into.failed += row.failed;
    }
    tally.items.push({ kind: row.kind, outcome: row.outcome, httpStatus: row.httpStatus, count: row.count });
  }
  const unowned = db.prepare('SELECT target, count(*) AS count FROM unowned_conversations WHERE run_id = ? GROUP BY target').all(runId) as Array<{ target: string; count: number }>;
  for (const row of unowned) (tally.targets[row.target] ??= emptyTargetTally()).unownedConversations = row.count;
  for (const [target, rerun] of Object.entries(requeuedAttempts(db, runId))) (tally.targets[target] ??= emptyTargetTally()).rerunAfterInterruption = rerun;
  for (const row of lostCreateChecks(db, runId)) {
    (tally.targets[row.target] ??= emptyTargetTally()).lostCreates = { texts: row.texts, unchecked: row.unchecked, error: row.error };
  }
  return tally;
}

/** Every column of a turn, named as TurnRow names them. */
const TURN_COLUMNS = `t.turn, t.text, t.question_id AS questionId, t.state, t.error_code AS errorCode, t.error_raw_code AS errorRawCode,
  t.error_message AS errorMessage, t.error_title AS errorTitle, t.error_details AS errorDetails,
  t.error_retry_time AS errorRetryTime, t.client_error AS clientError, t.title, t.answer, t.sent_at AS sentAt,
  t.observed_end_at AS observedEndAt, t.server_created_at AS serverCreatedAt, t.server_updated_at AS serverUpdatedAt,
  t.server_ms AS serverMs, t.server_ms_source AS serverMsSource, t.wall_ms AS wallMs, t.polls,
  t.time_millis AS timeMillis, t.tool_calls AS toolCalls, t.total_input_tokens AS totalInputTokens,
  t.cached_tokens AS cachedTokens, t.cache_creation_input_tokens AS cacheCreationInputTokens,
  t.prompt_tokens AS promptTokens, t.completion_tokens AS completionTokens, t.total_tokens AS totalTokens, t.credits`;

/** Every turn of a run with its item, in plan order then turn order. */
export function* iterateTurns(db: Database.Database, runId: number): Generator<TurnRow> {
  const statement = db.prepare(
    `SELECT ${ITEM_COLUMNS}, i.conversation_ref AS conversationRef,
      ${TURN_COLUMNS}
    FROM turns t JOIN items i ON i.run_id = t.run_id AND i.key = t.item_key
    WHERE t.run_id = ? ORDER BY i.position, t.turn`,
  );
  for (const row of statement.iterate(runId) as IterableIterator<Omit<TurnRow, 'partial'> & { tags: string }>) {
    yield { ...row, tags: JSON.parse(row.tags) as string[], partial: isPartialAnswer(row.state, row.answer) };
  }
}

/** Every search of a run with its item, in plan order. */
export function* iterateSearches(db: Database.Database, runId: number): Generator<SearchRow> {
  const statement = db.prepare(
    `SELECT ${ITEM_COLUMNS}, s.query, s.params_json AS params, s.verdict, s.match_count AS matchCount, s.counted,
      s.counted_by_type_json AS countedByType, s.repositories, s.files, s.repositories_count AS repositoriesCount,
      s.exhaustive, s.duration_ms AS durationMs, s.wall_ms AS wallMs, s.time_to_first_event_ms AS timeToFirstEventMs,
      s.time_to_first_match_ms AS timeToFirstMatchMs, s.skipped_json AS skipped, s.alert, s.error, s.http_status AS httpStatus
    FROM searches s JOIN items i ON i.run_id = s.run_id AND i.key = s.item_key
    WHERE s.run_id = ? ORDER BY i.position`,
  );
  type Raw = Omit<SearchRow, 'tags' | 'params' | 'countedByType' | 'skipped' | 'exhaustive'> & {
    tags: string;
    params: string;
    countedByType: string;
    skipped: string;
    exhaustive: number | null;
  };
  for (const row of statement.iterate(runId) as IterableIterator<Raw>) {
    yield {
      ...row,
      tags: JSON.parse(row.tags) as string[],
      params: JSON.parse(row.params) as Record<string, unknown>,
      countedByType: JSON.parse(row.countedByType) as Record<string, number>,
      skipped: JSON.parse(row.skipped) as SearchRow['skipped'],
      exhaustive: row.exhaustive === null ? null : row.exhaustive === 1,
    };
  }
}

export function expectationSummary(db: Database.Database, runId: number): ExpectationSummary {
  const { total, passed, failed, byName, failures } = expectationOverview(db, runId, -1);
  return { total, passed, failed, byName, failures };
}

// ---- Report queries (src/report/): streaming, one pass each, nothing heavier than a row in memory. ----

export interface ExpectationRecord {
  name: string;
  passed: boolean;
  reason: string;
  /** The turn it was checked on; null for a check on the whole item. */
  turn: number | null;
}

export interface QuestionExportRow extends TurnRow {
  runId: number;
  /** The item's tags as stored (JSON text): summaries group by it. */
  tagsJson: string;
  /** Source links in the order the server gave them; empty when none were recorded. */
  sourceLinks: string[];
  suggestedFollowups: string[];
  /** Every expectation of the item (not only this turn's), in check order. */
  expectations: ExpectationRecord[];
  /** Highest turn recorded for the item: item-level checks belong to it. */
  lastTurn: number;
  /** The judge's score of this turn (the lowest when two rubrics grade it); null when not graded. */
  judgeScore: number | null;
  /** Citations of this turn checked valid and invalid (0 and 0 when none were checked). */
  citationsValid: number;
  citationsInvalid: number;
  /** The reply's stat anomalies as stored (a JSON array of descriptions); null when its stats could be true. */
  anomalies: string | null;
}

export interface SearchExportRow extends SearchRow {
  expectations: ExpectationRecord[];
}

export interface ExportOptions {
  /** `plan` (default): plan order then turn; `key`: target, suite item id, repeat, turn (for pairing runs). */
  order?: 'plan' | 'key';
  /** Only this target's items. */
  target?: string | undefined;
}

const EXPECTATIONS_JSON = `(SELECT json_group_array(json_object('name', e.name, 'passed', e.passed, 'reason', e.reason, 'turn', e.turn)
    ORDER BY e.position) FROM expectations e WHERE e.run_id = i.run_id AND e.item_key = i.key)`;

function parseExpectations(json: string | null): ExpectationRecord[] {
  if (!json || json === '[]') return [];
  return (JSON.parse(json) as Array<{ name: string; passed: number; reason: string; turn: number | null }>).map((e) => ({
    name: e.name,
    passed: e.passed === 1,
    reason: e.reason,
    turn: e.turn,
  }));
}

// The exports drive from items (CROSS JOIN fixes the join order): in plan order SQLite then walks the
// (run_id, position) index and each item's turns in turn order, with no sort of the whole run; in key order
// (compare) the items_pairing index. Left to itself it may scan turns and sort every row, all columns, in
// temporary files: several times slower.
function exportOrder(options: ExportOptions): string {
  return options.order === 'key' ? 'i.target, i.suite_item_id, i.repeat' : 'i.position';
}

/** The terms questionExportSql selects (`expression AS name`, or a bare column), in the order iterateQuestionExport reads them. */
const QUESTION_EXPORT_TERMS: readonly string[] = [
  ...`${ITEM_COLUMNS}, i.conversation_ref AS conversationRef, ${TURN_COLUMNS}`.split(',').map((term) => term.trim()),
  `(SELECT json_group_array(s.link ORDER BY s.position) FROM sources s
        WHERE s.run_id = t.run_id AND s.item_key = t.item_key AND s.turn = t.turn) AS sourceLinks`,
  `(SELECT json_group_array(f.text ORDER BY f.position) FROM suggested_followups f
        WHERE f.run_id = t.run_id AND f.item_key = t.item_key AND f.turn = t.turn) AS suggestedFollowups`,
  `${EXPECTATIONS_JSON} AS expectations`,
  '(SELECT max(t2.turn) FROM turns t2 WHERE t2.run_id = t.run_id AND t2.item_key = t.item_key) AS lastTurn',
  '(SELECT min(g.score) FROM grades g WHERE g.run_id = t.run_id AND g.item_key = t.item_key AND g.turn = t.turn) AS judgeScore',
  "(SELECT count(*) FROM citations c WHERE c.run_id = t.run_id AND c.item_key = t.item_key AND c.turn = t.turn AND c.status = 'valid') AS citationsValid",
  "(SELECT count(*) FROM citations c WHERE c.run_id = t.run_id AND c.item_key = t.item_key AND c.turn = t.turn AND c.status = 'invalid') AS citationsInvalid",
  't.anomalies',
];

const AS_NAME = /\s+AS\s+(\w+)$/;

/**
 * The query of iterateQuestionExport: parameters run id, then the target twice (null for all). With
 * `rowFunction`, one column: that SQL function called with every term as its arguments.
 */
export function questionExportSql(options: ExportOptions = {}, rowFunction?: string): string {
  const select =
    rowFunction === undefined ? QUESTION_EXPORT_TERMS.join(',\n      ') : `${rowFunction}(${QUESTION_EXPORT_TERMS.map((term) => term.replace(AS_NAME, '')).join(',\n      ')})`;
  return `SELECT ${select}
    FROM items i CROSS JOIN turns t ON t.run_id = i.run_id AND t.item_key = i.key
    WHERE i.run_id = ? AND (? IS NULL OR i.target = ?) ORDER BY ${exportOrder(options)}, t.turn`;
}

/** The column names questionExportSql selects, in order: iterateQuestionExport reads them by position. */
const QUESTION_EXPORT_NAMES = [
  'itemKey', 'kind', 'target', 'suiteItemId', 'repeat', 'tags', 'itemStatus', 'outcome', 'conversationRef',
  'turn', 'text', 'questionId', 'state', 'errorCode', 'errorRawCode', 'errorMessage', 'errorTitle', 'errorDetails',
  'errorRetryTime', 'clientError', 'title', 'answer', 'sentAt', 'observedEndAt', 'serverCreatedAt', 'serverUpdatedAt',
  'serverMs', 'serverMsSource', 'wallMs', 'polls', 'timeMillis', 'toolCalls', 'totalInputTokens', 'cachedTokens',
  'cacheCreationInputTokens', 'promptTokens', 'completionTokens', 'totalTokens', 'credits',
  'sourceLinks', 'suggestedFollowups', 'expectations', 'lastTurn', 'judgeScore', 'citationsValid', 'citationsInvalid', 'anomalies',
].join();

const jsonList = (json: string): string[] => (json === '[]' ? [] : (JSON.parse(json) as string[]));

/** Parses JSON text, reusing the last result for the same text: an item's turns come one after another and share its tags and expectations. */
function lastParsed<T>(parse: (json: string) => T): (json: string) => T {
  let lastJson: string | undefined;
  let last: T;
  return (json) => {
    if (json !== lastJson) {
      last = parse(json);
      lastJson = json;
    }
    return last;
  };
}

/** A connection's export row function: the values of the row it was last handed, and how many it has been handed. */
interface RowFunction {
  name: string;
  row: any[];
  handed: number;
}

const rowFunctions = new WeakMap<Database.Database, RowFunction>();

/** Registered at a connection's first export, before any statement of it is read (a busy connection takes no new function). */
function rowFunctionOf(db: Database.Database): RowFunction {
  let fn = rowFunctions.get(db);
  if (fn === undefined) {
    const registered: RowFunction = { name: 'dsbench_export_row', row: [], handed: 0 };
    db.function(registered.name, { varargs: true, deterministic: false }, (...values: unknown[]) => {
      registered.row = values;
      return ++registered.handed;
    });
    rowFunctions.set(db, (fn = registered));
  }
  return fn;
}

/**
 * The export query's rows as arrays of values. better-sqlite3 (on Node 20) builds a row array through V8's
 * generic element store, one call per value: about a sixth of the time it takes to read the rows. A SQL
 * function's arguments come to JavaScript in one call, so the query hands each row to one and returns the
 * sequence number of the row handed over. Each row is taken as soon as its step returns, so two reads on one
 * connection may interleave. When the plan sorts (SQLite would then evaluate rows before it returns them),
 * plain rows are read instead.
 */
function* questionExportValues(db: Database.Database, runId: number, options: ExportOptions): Generator<any[]> {
  const target = options.target ?? null;
  const fn = rowFunctionOf(db);
  const plainSql = questionExportSql(options);
  const plain = db.prepare(plainSql).raw(true);
  const names = plain.columns().map((c) => c.name).join();
  if (names !== QUESTION_EXPORT_NAMES) throw new Error(`questionExportSql selects ${names}, iterateQuestionExport reads ${QUESTION_EXPORT_NAMES}`);
  // A sort of the outer query (not of a json_group_array inside a subquery) is a step at the top of the plan.
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${plainSql}`).all(runId, target, target) as Array<{ parent: number; detail: string }>;
  if (plan.some((step) => step.parent === 0 && step.detail.includes('TEMP B-TREE'))) {
    yield* plain.iterate(runId, target, target) as IterableIterator<any[]>;
    return;
  }
  for (const sequence of db.prepare(questionExportSql(options, fn.name)).pluck(true).iterate(runId, target, target) as IterableIterator<number>) {
    if (sequence !== fn.handed) throw new Error(`internal error: the export query returned row ${sequence} after handing over row ${fn.handed}`);
    yield fn.row;
  }
}

/** Every turn of a run with its sources, follow-ups and the item's expectations (for questions.csv and comparisons). */
export function* iterateQuestionExport(db: Database.Database, runId: number, options: ExportOptions = {}): Generator<QuestionExportRow> {
  // Shared by the turns of one item, never changed by a reader.
  const tagsOf = lastParsed((json) => JSON.parse(json) as string[]);
  const expectationsOf = lastParsed(parseExpectations);
  for (const r of questionExportValues(db, runId, options)) {
    yield {
      runId, itemKey: r[0], kind: r[1], target: r[2], suiteItemId: r[3], repeat: r[4], tags: tagsOf(r[5]), tagsJson: r[5],
      itemStatus: r[6], outcome: r[7], conversationRef: r[8],
      turn: r[9], text: r[10], questionId: r[11], state: r[12], errorCode: r[13], errorRawCode: r[14], errorMessage: r[15],
      errorTitle: r[16], errorDetails: r[17], errorRetryTime: r[18], clientError: r[19], title: r[20], answer: r[21], partial: isPartialAnswer(r[12], r[21]),
      sentAt: r[22], observedEndAt: r[23], serverCreatedAt: r[24], serverUpdatedAt: r[25], serverMs: r[26], serverMsSource: r[27],
      wallMs: r[28], polls: r[29], timeMillis: r[30], toolCalls: r[31], totalInputTokens: r[32], cachedTokens: r[33],
      cacheCreationInputTokens: r[34], promptTokens: r[35], completionTokens: r[36], totalTokens: r[37], credits: r[38],
      sourceLinks: jsonList(r[39]), suggestedFollowups: jsonList(r[40]), expectations: expectationsOf(r[41]),
      lastTurn: r[42], judgeScore: r[43], citationsValid: r[44], citationsInvalid: r[45], anomalies: r[46],
    };
  }
}

/** Every search of a run with its item's expectations. */
export function* iterateSearchExport(db: Database.Database, runId: number, options: ExportOptions = {}): Generator<SearchExportRow> {
  const statement = db.prepare(
    `SELECT ${ITEM_COLUMNS}, s.query, s.params_json AS params, s.verdict, s.match_count AS matchCount, s.counted,
      s.counted_by_type_json AS countedByType, s.repositories, s.files, s.repositories_count AS repositoriesCount,
      s.exhaustive, s.duration_ms AS durationMs, s.wall_ms AS wallMs, s.time_to_first_event_ms AS timeToFirstEventMs,
      s.time_to_first_match_ms AS timeToFirstMatchMs, s.skipped_json AS skipped, s.alert, s.error, s.http_status AS httpStatus,
      ${EXPECTATIONS_JSON} AS expectations
    FROM items i CROSS JOIN searches s ON s.run_id = i.run_id AND s.item_key = i.key
    WHERE i.run_id = ? AND i.kind = 'search' AND (? IS NULL OR i.target = ?) ORDER BY ${exportOrder(options)}`,
  );
  type Raw = Omit<SearchExportRow, 'tags' | 'params' | 'countedByType' | 'skipped' | 'exhaustive' | 'expectations'> & {
    tags: string;
    params: string;
    countedByType: string;
    skipped: string;
    exhaustive: number | null;
    expectations: string | null;
  };
  const target = options.target ?? null;
  for (const raw of statement.iterate(runId, target, target) as IterableIterator<Raw>) {
    const row = raw as unknown as SearchExportRow;
    row.tags = JSON.parse(raw.tags) as string[];
    row.params = JSON.parse(raw.params) as Record<string, unknown>;
    row.countedByType = JSON.parse(raw.countedByType) as Record<string, number>;
    row.skipped = JSON.parse(raw.skipped) as SearchRow['skipped'];
    row.exhaustive = raw.exhaustive === null ? null : raw.exhaustive === 1;
    row.expectations = parseExpectations(raw.expectations);
    yield row;
  }
}

/** The numeric columns of a turn that summaries need; tags as the stored JSON text (cheap to group by). */
export interface TurnMetricRow {
  target: string;
  suiteItemId: string;
  repeat: number;
  tagsJson: string;
  turn: number;
  state: string;
  errorCode: string | null;
  wallMs: number | null;
  serverMs: number | null;
  totalTokens: number | null;
  /** Input tokens served from the model's prompt cache. */
  cachedTokens: number | null;
  credits: number | null;
  toolCalls: number | null;
}

/** Every turn of a run, light: no text columns. */
export function iterateTurnMetrics(db: Database.Database, runId: number): IterableIterator<TurnMetricRow> {
  return db
    .prepare(
      `SELECT i.target, i.suite_item_id AS suiteItemId, i.repeat, i.tags_json AS tagsJson, t.turn, t.state,
        t.error_code AS errorCode, t.wall_ms AS wallMs, t.server_ms AS serverMs, t.total_tokens AS totalTokens,
        t.cached_tokens AS cachedTokens, t.credits, t.tool_calls AS toolCalls
      FROM turns t JOIN items i ON i.run_id = t.run_id AND i.key = t.item_key WHERE t.run_id = ?`,
    )
    .iterate(runId) as IterableIterator<TurnMetricRow>;
}

/** One row per item: where it is, and its expectations in short (`expectPassed` null when it has none). */
export interface ItemVerdictRow {
  kind: ItemKind;
  target: string;
  suiteItemId: string;
  repeat: number;
  tagsJson: string;
  status: ItemStatus;
  outcome: string | null;
  expectations: number;
  expectPassed: 0 | 1 | null;
}

/** The items of a run in plan order; with `unexported`, only those with no turn and no search recorded (the rows of the question and search exports carry the others). */
export function iterateItemVerdicts(db: Database.Database, runId: number, options: { unexported?: boolean } = {}): IterableIterator<ItemVerdictRow> {
  return db
    .prepare(
      `SELECT i.kind, i.target, i.suite_item_id AS suiteItemId, i.repeat, i.tags_json AS tagsJson, i.status, i.outcome,
        (SELECT count(*) FROM expectations e WHERE e.run_id = i.run_id AND e.item_key = i.key) AS expectations,
        (SELECT min(e.passed) FROM expectations e WHERE e.run_id = i.run_id AND e.item_key = i.key) AS expectPassed
      FROM items i WHERE i.run_id = ?
        ${options.unexported === true ? `AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key)
          AND NOT EXISTS (SELECT 1 FROM searches s WHERE s.run_id = i.run_id AND s.item_key = i.key)` : ''}
      ORDER BY i.position`,
    )
    .iterate(runId) as IterableIterator<ItemVerdictRow>;
}

export interface QuotaSnapshotRow {
  target: string;
  at: string;
  totalQuota: number;
  quotaLimit: number;
  resetTime: string | null;
}

/** Quota snapshots of a run, by target then time. */
export function quotaSnapshots(db: Database.Database, runId: number): QuotaSnapshotRow[] {
  return db
    .prepare(
      `SELECT target, at, total_quota AS totalQuota, quota_limit AS quotaLimit, reset_time AS resetTime
      FROM quota_snapshots WHERE run_id = ? ORDER BY target, at, id`,
    )
    .all(runId) as QuotaSnapshotRow[];
}

export interface RunTargetRow {
  name: string;
  url: string;
  api: 'legacy' | 'versioned';
  /** The embedded emulator (gone with its process: a resume starts another). */
  emulated: boolean;
  /** Its answers came from a dsbench emulator, the embedded one or a standalone one. */
  servedByEmulator: boolean;
}

/** Targets of a run in the order the run listed them. */
export function runTargets(db: Database.Database, runId: number): RunTargetRow[] {
  return (
    db.prepare(`SELECT name, url, api, emulated, emulator FROM targets WHERE run_id = ? ORDER BY rowid`).all(runId) as Array<
      Omit<RunTargetRow, 'emulated' | 'servedByEmulator'> & { emulated: number; emulator: number }
    >
  ).map(({ emulator, ...t }) => ({ ...t, emulated: t.emulated === 1, servedByEmulator: t.emulated === 1 || emulator === 1 }));
}

/** Counts of a run's rows, for progress and preallocation. */
export function runCounts(db: Database.Database, runId: number): { items: number; turns: number; searches: number } {
  return db
    .prepare(
      `SELECT (SELECT count(*) FROM items WHERE run_id = @runId) AS items,
        (SELECT count(*) FROM turns WHERE run_id = @runId) AS turns,
        (SELECT count(*) FROM searches WHERE run_id = @runId) AS searches`,
    )
    .get({ runId }) as { items: number; turns: number; searches: number };
}

/** Checks whose result is a measure (recall over files, a number stated), shown with it in reports, passed or not. */
const MEASURED_CHECKS = ['citesRecall', 'number'];

export type MeasuredCheck = Omit<ExpectationSummary['failures'][number], 'itemKey'> & { passed: boolean };

/**
 * Expectations of a run by name, with item counts; at most `maxFailures` failures listed (-1: all), so
 * `failures.length` may be less than `failed`; as many of the measured checks (recall, numbers), passed or not.
 */
export function expectationOverview(
  db: Database.Database,
  runId: number,
  maxFailures: number,
): ExpectationSummary & { failedItems: number; items: number; passedItems: number; measured: MeasuredCheck[] } {
  const byName = db
    .prepare(
      `SELECT name, count(*) AS total, sum(passed) AS passed, count(*) - sum(passed) AS failed
      FROM expectations WHERE run_id = ? GROUP BY name ORDER BY name`,
    )
    .all(runId) as ExpectationSummary['byName'];
  const failures = db
    .prepare(
      `SELECT i.key AS itemKey, i.target, i.suite_item_id AS suiteItemId, i.repeat, e.name, e.reason, e.turn
      FROM expectations e JOIN items i ON i.run_id = e.run_id AND i.key = e.item_key
      WHERE e.run_id = ? AND e.passed = 0 ORDER BY i.position, e.position LIMIT ?`,
    )
    .all(runId, maxFailures < 0 ? -1 : maxFailures) as ExpectationSummary['failures'];
  const items = db
    .prepare(
      `SELECT count(*) AS items, coalesce(sum(ok), 0) AS passedItems FROM
        (SELECT min(passed) AS ok FROM expectations WHERE run_id = ? GROUP BY item_key)`,
    )
    .get(runId) as { items: number; passedItems: number };
  const measured = db
    .prepare(
      `SELECT i.target, i.suite_item_id AS suiteItemId, i.repeat, e.name, e.passed, e.reason, e.turn
      FROM expectations e JOIN items i ON i.run_id = e.run_id AND i.key = e.item_key
      WHERE e.run_id = ? AND e.name IN (${MEASURED_CHECKS.map(() => '?').join(', ')}) ORDER BY i.position, e.position LIMIT ?`,
    )
    .all(runId, ...MEASURED_CHECKS, maxFailures < 0 ? -1 : maxFailures) as Array<Omit<MeasuredCheck, 'passed'> & { passed: number }>;
  const passed = byName.reduce((sum, n) => sum + n.passed, 0);
  const total = byName.reduce((sum, n) => sum + n.total, 0);
  return {
    total,
    passed,
    failed: total - passed,
    byName,
    failures,
    ...items,
    failedItems: items.items - items.passedItems,
    measured: measured.map((m) => ({ ...m, passed: m.passed === 1 })),
  };
}

export interface ErrorBreakdownRow {
  target: string;
  kind: ItemKind;
  /** Turn state (questions) or verdict (searches). */
  state: string;
  errorCode: string | null;
  rawCode: string | null;
  count: number;
  /** One message of the group (the smallest, so reports are stable). */
  example: string | null;
}

/** Failed turns and searches grouped by target, state, code and raw code; most frequent first. */
export function errorBreakdown(db: Database.Database, runId: number): ErrorBreakdownRow[] {
  return db
    .prepare(
      `SELECT target, kind, state, errorCode, rawCode, count(*) AS count, min(message) AS example FROM (
        SELECT i.target, 'question' AS kind, t.state, t.error_code AS errorCode, t.error_raw_code AS rawCode,
          coalesce(t.error_message, t.client_error) AS message
        FROM turns t JOIN items i ON i.run_id = t.run_id AND i.key = t.item_key
        WHERE t.run_id = @runId AND t.state IN ('error', 'canceled', 'timeout', 'client_error')
        UNION ALL
        SELECT i.target, 'search', s.verdict, NULL, CAST(s.http_status AS TEXT), coalesce(s.error, s.alert)
        FROM searches s JOIN items i ON i.run_id = s.run_id AND i.key = s.item_key
        WHERE s.run_id = @runId AND s.verdict IN ('error', 'http_error'))
      GROUP BY target, kind, state, errorCode, rawCode ORDER BY count DESC, target, kind, state, errorCode, rawCode`,
    )
    .all({ runId }) as ErrorBreakdownRow[];
}

export interface StatAnomalyRow {
  target: string;
  itemKey: string;
  turn: number;
  /** What could not be true, one description per figure. */
  anomalies: string[];
}

/** Replies whose stats could not be true (kept out of sums and percentiles), in item order. */
/** A conversation asking one of the run's questions that no item owns (a create given up that landed after all). */
export interface LostCreateCheckRow {
  target: string;
  /** Texts of creates given up, their outcome unknown. */
  texts: number;
  /** Of those, the texts no end-of-run check looked for (the run ended before its check, or the check failed). */
  unchecked: number;
  /** Why the last check failed; null when none did. */
  error: string | null;
}

/** Per target, the creates a run gave up and whether the end-of-run check looked for their late landing. */
export function lostCreateChecks(db: Database.Database, runId: number): LostCreateCheckRow[] {
  return db
    .prepare(
      `SELECT target, count(*) AS texts, sum(checked IS NULL OR failed IS NOT NULL) AS unchecked, max(failed) AS error
       FROM (SELECT target, text, max(checked_at) AS checked, max(check_error) AS failed FROM lost_creates WHERE run_id = ? GROUP BY target, text)
       GROUP BY target ORDER BY target`,
    )
    .all(runId) as LostCreateCheckRow[];
}

export interface UnownedConversationRow {
  target: string;
  conversationRef: string;
  text: string;
  createdAt: string | null;
}

export function unownedConversations(db: Database.Database, runId: number): UnownedConversationRow[] {
  return db
    .prepare('SELECT target, conversation_ref AS conversationRef, text, created_at AS createdAt FROM unowned_conversations WHERE run_id = ? ORDER BY target, created_at, conversation_ref')
    .all(runId) as UnownedConversationRow[];
}

export function statAnomalies(db: Database.Database, runId: number): StatAnomalyRow[] {
  const rows = db
    .prepare(
      `SELECT i.target, t.item_key AS itemKey, t.turn, t.anomalies FROM turns t JOIN items i ON i.run_id = t.run_id AND i.key = t.item_key
      WHERE t.run_id = @runId AND t.anomalies IS NOT NULL ORDER BY i.position, t.turn`,
    )
    .all({ runId }) as Array<Omit<StatAnomalyRow, 'anomalies'> & { anomalies: string }>;
  return rows.map((r) => ({ ...r, anomalies: JSON.parse(r.anomalies) as string[] }));
}

/**
 * The run `offset` places back (0 = newest) among the runs that match: all runs, or those with a label,
 * of a suite, up to an id. For selectors like `nightly~1` (the nightly before the newest).
 * A shard run (one part of a split run) is only chosen when no whole run matches: a shard that landed in a
 * results database under the nightly label must not stand in for a whole night in a comparison or gate,
 * while `report latest` in a shard's own database still finds the shard. Likewise a run that asked nothing
 * (every item skipped before it was sent, e.g. a refused token) is chosen only when no run that asked matches:
 * it is never a night's `latest`.
 */
export function findRunOffset(
  db: Database.Database,
  where: { label?: string | undefined; suite?: string | undefined; atMostId?: number | undefined },
  offset: number,
): RunRecord | undefined {
  const matches = '(@label IS NULL OR label = @label) AND (@suite IS NULL OR suite_name = @suite) AND (@maxId IS NULL OR id <= @maxId)';
  const row = db
    .prepare(
      `SELECT ${RUN_COLUMNS} FROM runs
      WHERE ${matches} AND (shard_index IS NULL OR NOT EXISTS (SELECT 1 FROM runs WHERE ${matches} AND shard_index IS NULL))
        AND (nothing_asked = 0 OR NOT EXISTS (SELECT 1 FROM runs WHERE ${matches} AND nothing_asked = 0))
      ORDER BY id DESC LIMIT 1 OFFSET @offset`,
    )
    .get({ label: where.label ?? null, suite: where.suite ?? null, maxId: where.atMostId ?? null, offset });
  return row === undefined ? undefined : runRecord(db, row);
}
