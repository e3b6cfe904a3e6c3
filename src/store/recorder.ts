import Database from 'better-sqlite3';
import { redact } from '../http/redact.js';
import type { ExpectationResult, ItemOutcome, ItemStatus, PlannedItem, SearchRecord, TurnRecord, TurnState } from '../model/item.js';
import type { Recorder } from '../runner/recorder.js';
import type { RequeuedItem, ResumeItem, ResumeState, RunHeader, ResumeTurn, RunInfo, RunStatus, StoppedMarker, TargetInfo, UnownedConversation } from '../model/run.js';
import type { RunLease } from '../model/lease.js';
import type { RunTally } from '../model/tally.js';
import type { QuestionError, QuotaUsage, Source } from '../model/conversation.js';
import { isPartialAnswer } from '../model/partial.js';
import { statsFromSnakeCase } from '../deepsearch/stats.js';
import { LeaseLostError } from '../errors/errors.js';
import { acquireLease } from './lease.js';
import { runTally } from './queries.js';
import { requeueStoppedItems } from './requeue.js';
import { storageErrorFrom } from './storage-error.js';
import { withoutSecretKeys, withoutUrlSecrets } from './secrets.js';

const { SqliteError } = Database;

type Params = Record<string, string | number | null>;
type Statement = Database.Statement<[Params]>;
type Value = string | number | null;
/** Bound by position: the statements run for every request, and binding by name costs two property lookups a parameter. */
type PositionalStatement = Database.Statement<Value[]>;

const UNFINISHED = `SELECT key FROM items WHERE run_id = @runId AND status <> 'done'`;

// Every statement is prepared once here: a call does no schema lookups and no SQL parsing.
function prepareStatements(db: Database.Database) {
  const s = (sql: string): Statement => db.prepare<Params>(sql);
  const p = (sql: string): PositionalStatement => db.prepare<Value[]>(sql);
  return {
    insertRun: s(`INSERT INTO runs (label, suite_name, suite_path, suite_hash, dsbench_version, options_json, started_at, status,
        group_id, group_label, shard_index, shard_count, rerun_of)
      VALUES (@label, @suiteName, @suitePath, @suiteHash, @dsbenchVersion, @optionsJson, @startedAt, 'running',
        @groupId, @groupLabel, @shardIndex, @shardCount, @rerunOf)`),
    insertTarget: s(`INSERT INTO targets (run_id, name, url, api, emulated) VALUES (@runId, @name, @url, @api, @emulated)`),
    insertItem: p(`INSERT INTO items (run_id, key, position, kind, target, suite_item_id, repeat, tags_json, status)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')`),
    selectRun: s(`SELECT * FROM runs WHERE id = @runId`),
    selectTargets: s(`SELECT * FROM targets WHERE run_id = @runId ORDER BY rowid`),
    selectItems: s(`SELECT key, status, outcome, conversation_ref, deleted_at FROM items WHERE run_id = @runId ORDER BY position`),
    selectTurns: s(`SELECT * FROM turns WHERE run_id = @runId ORDER BY item_key, turn`),
    selectSources: s(`SELECT item_key, turn, type, link, label FROM sources WHERE run_id = @runId ORDER BY item_key, turn, position`),
    selectFollowups: s(`SELECT item_key, turn, text FROM suggested_followups WHERE run_id = @runId ORDER BY item_key, turn, position`),
    // The same, for the items a resume runs again: a done item's answers are never read back.
    selectUnfinishedTurns: s(`SELECT * FROM turns WHERE run_id = @runId AND item_key IN (${UNFINISHED}) ORDER BY item_key, turn`),
    selectUnfinishedSources: s(`SELECT item_key, turn, type, link, label FROM sources WHERE run_id = @runId AND item_key IN (${UNFINISHED})
      ORDER BY item_key, turn, position`),
    selectUnfinishedFollowups: s(`SELECT item_key, turn, text FROM suggested_followups WHERE run_id = @runId AND item_key IN (${UNFINISHED})
      ORDER BY item_key, turn, position`),
    countItems: s(`SELECT count(*) AS n FROM items WHERE run_id = @runId`),
    hasItem: s(`SELECT 1 FROM items WHERE run_id = @runId AND key = @key`),
    serverTimesSeen: p(`SELECT i.target, t.server_created_at, i.conversation_created_at FROM items i
      JOIN turns t ON t.run_id = i.run_id AND t.item_key = i.key AND t.turn = 0
      WHERE i.run_id = ? AND i.conversation_created_at IS NOT NULL AND t.server_created_at IS NOT NULL
      ORDER BY i.conversation_created_at`),
    // A run that ended having sent nothing (every item skipped before it was sent) says so. Not an aborted one:
    // it is still to be resumed (`--resume latest` must find it).
    setRunStatus: s(`UPDATE runs SET status = @status, ended_at = CASE WHEN @status = 'running' THEN NULL ELSE @at END,
        nothing_asked = @status IN ('completed', 'failed')
          AND NOT EXISTS (SELECT 1 FROM items WHERE run_id = @runId AND (started_at IS NOT NULL OR status NOT IN ('pending', 'skipped')))
          AND NOT EXISTS (SELECT 1 FROM requeued_attempts WHERE run_id = @runId),
        stop_reason = @stopReason
      WHERE id = @runId`),
    // An item resumed after a crash keeps the time it first started.
    // An item's updates take (run, key) last: see updateItem.
    itemStarted: p(`UPDATE items SET status = 'running', started_at = coalesce(started_at, ?) WHERE run_id = ? AND key = ?`),
    conversationCreated: p(`UPDATE items SET conversation_ref = ?, conversation_created_at = ? WHERE run_id = ? AND key = ?`),
    itemEnded: p(`UPDATE items SET status = ?, outcome = ?, message = ?, ended_at = ? WHERE run_id = ? AND key = ?`),
    itemUnobserved: p(`UPDATE items SET status = 'running', message = ? WHERE run_id = ? AND key = ?`),
    conversationDeleted: p(`UPDATE items SET deleted_at = ? WHERE run_id = ? AND key = ?`),
    targetServedByEmulator: s(`UPDATE targets SET emulator = 1 WHERE run_id = @runId AND name = @target`),
    // Bound by position, in the order of its columns (see writeTurn).
    upsertTurn: p(`INSERT INTO turns (run_id, item_key, turn, text, question_id, state, error_code, error_raw_code, error_message,
        error_title, error_details, error_retry_time, client_error, title, answer, sent_at, observed_end_at, server_created_at,
        server_updated_at, server_ms, server_ms_source, wall_ms, polls, time_millis, tool_calls, total_input_tokens, cached_tokens,
        cache_creation_input_tokens, prompt_tokens, completion_tokens, total_tokens, credits, anomalies)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (run_id, item_key, turn) DO UPDATE SET
        text = excluded.text, state = excluded.state, polls = excluded.polls,
        question_id = coalesce(excluded.question_id, question_id),
        error_code = coalesce(excluded.error_code, error_code),
        error_raw_code = coalesce(excluded.error_raw_code, error_raw_code),
        error_message = coalesce(excluded.error_message, error_message),
        error_title = coalesce(excluded.error_title, error_title),
        error_details = coalesce(excluded.error_details, error_details),
        error_retry_time = coalesce(excluded.error_retry_time, error_retry_time),
        client_error = coalesce(excluded.client_error, client_error),
        title = coalesce(excluded.title, title),
        answer = coalesce(excluded.answer, answer),
        anomalies = coalesce(excluded.anomalies, anomalies),
        sent_at = coalesce(excluded.sent_at, sent_at),
        observed_end_at = coalesce(excluded.observed_end_at, observed_end_at),
        server_created_at = coalesce(excluded.server_created_at, server_created_at),
        server_updated_at = coalesce(excluded.server_updated_at, server_updated_at),
        server_ms = coalesce(excluded.server_ms, server_ms),
        server_ms_source = coalesce(excluded.server_ms_source, server_ms_source),
        wall_ms = coalesce(excluded.wall_ms, wall_ms),
        -- Stats of a reply with impossible figures are dropped whole, including those of earlier polls.
        time_millis = CASE WHEN excluded.anomalies IS NULL THEN coalesce(excluded.time_millis, time_millis) END,
        tool_calls = CASE WHEN excluded.anomalies IS NULL THEN coalesce(excluded.tool_calls, tool_calls) END,
        total_input_tokens = CASE WHEN excluded.anomalies IS NULL THEN coalesce(excluded.total_input_tokens, total_input_tokens) END,
        cached_tokens = CASE WHEN excluded.anomalies IS NULL THEN coalesce(excluded.cached_tokens, cached_tokens) END,
        cache_creation_input_tokens = CASE WHEN excluded.anomalies IS NULL THEN coalesce(excluded.cache_creation_input_tokens, cache_creation_input_tokens) END,
        prompt_tokens = CASE WHEN excluded.anomalies IS NULL THEN coalesce(excluded.prompt_tokens, prompt_tokens) END,
        completion_tokens = CASE WHEN excluded.anomalies IS NULL THEN coalesce(excluded.completion_tokens, completion_tokens) END,
        total_tokens = CASE WHEN excluded.anomalies IS NULL THEN coalesce(excluded.total_tokens, total_tokens) END,
        credits = CASE WHEN excluded.anomalies IS NULL THEN coalesce(excluded.credits, credits) END`),
    deleteSources: p(`DELETE FROM sources WHERE run_id = ? AND item_key = ? AND turn = ?`),
    insertSource: p(`INSERT INTO sources (run_id, item_key, turn, position, type, link, label) VALUES (?, ?, ?, ?, ?, ?, ?)`),
    deleteFollowups: p(`DELETE FROM suggested_followups WHERE run_id = ? AND item_key = ? AND turn = ?`),
    insertFollowup: p(`INSERT INTO suggested_followups (run_id, item_key, turn, position, text) VALUES (?, ?, ?, ?, ?)`),
    insertLostCreate: p(`INSERT INTO lost_creates (run_id, target, text, sent_at) VALUES (?, ?, ?, ?)`),
    selectLostCreates: p(`SELECT target, text, min(sent_at) FROM lost_creates WHERE run_id = ? GROUP BY target, text`),
    lostCreatesChecked: p(`UPDATE lost_creates SET checked_at = coalesce(?, checked_at), check_error = ? WHERE run_id = ? AND target = ?`),
    insertUnowned: p(`INSERT OR IGNORE INTO unowned_conversations (run_id, target, conversation_ref, text, created_at, found_at) VALUES (?, ?, ?, ?, ?, ?)`),
    insertQuota: s(`INSERT INTO quota_snapshots (run_id, target, at, total_quota, quota_limit, reset_time)
      VALUES (@runId, @target, @at, @totalQuota, @quotaLimit, @resetTime)`),
    upsertSearch: s(`INSERT INTO searches (run_id, item_key, query, params_json, verdict, match_count, counted, counted_by_type_json,
        repositories, files, repositories_count, exhaustive, duration_ms, wall_ms, time_to_first_event_ms, time_to_first_match_ms,
        skipped_json, alert, error, http_status)
      VALUES (@runId, @key, @query, @paramsJson, @verdict, @matchCount, @counted, @countedByTypeJson, @repositories, @files,
        @repositoriesCount, @exhaustive, @durationMs, @wallMs, @timeToFirstEventMs, @timeToFirstMatchMs, @skippedJson, @alert,
        @error, @httpStatus)
      ON CONFLICT (run_id, item_key) DO UPDATE SET
        query = excluded.query, params_json = excluded.params_json, verdict = excluded.verdict, match_count = excluded.match_count,
        counted = excluded.counted, counted_by_type_json = excluded.counted_by_type_json, repositories = excluded.repositories,
        files = excluded.files, repositories_count = excluded.repositories_count, exhaustive = excluded.exhaustive,
        duration_ms = excluded.duration_ms, wall_ms = excluded.wall_ms, time_to_first_event_ms = excluded.time_to_first_event_ms,
        time_to_first_match_ms = excluded.time_to_first_match_ms, skipped_json = excluded.skipped_json, alert = excluded.alert,
        error = excluded.error, http_status = excluded.http_status`),
    deleteExpectations: s(`DELETE FROM expectations WHERE run_id = @runId AND item_key = @key`),
    insertExpectation: s(`INSERT INTO expectations (run_id, item_key, position, name, passed, reason, turn)
      VALUES (@runId, @key, @position, @name, @passed, @reason, @turn)`),
  };
}

interface RunRow {
  id: number;
  label: string | null;
  suite_name: string;
  suite_path: string;
  suite_hash: string;
  dsbench_version: string;
  options_json: string;
  started_at: string;
  status: string;
  group_id: string | null;
  group_label: string | null;
  shard_index: number | null;
  shard_count: number | null;
}
interface TargetRow {
  name: string;
  url: string;
  api: TargetInfo['api'];
  emulated: number;
}
interface ItemRow {
  key: string;
  status: string;
  outcome: string | null;
  conversation_ref: string | null;
  deleted_at: string | null;
}
interface TurnRow {
  item_key: string;
  turn: number;
  state: string;
  text: string;
  question_id: string | null;
  sent_at: string | null;
  error_code: string | null;
  error_raw_code: string | null;
  error_message: string | null;
  error_title: string | null;
  error_details: string | null;
  error_retry_time: string | null;
  client_error: string | null;
  title: string | null;
  answer: string | null;
  observed_end_at: string | null;
  server_created_at: string | null;
  server_updated_at: string | null;
  server_ms: number | null;
  server_ms_source: string | null;
  wall_ms: number | null;
  polls: number;
  time_millis: number | null;
  tool_calls: number | null;
  total_input_tokens: number | null;
  cached_tokens: number | null;
  cache_creation_input_tokens: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  credits: number | null;
}

interface ChildRow {
  item_key: string;
  turn: number;
}

function groupByTurn<R extends ChildRow, T>(rows: R[], pick: (row: R) => T): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = `${row.item_key}\u0000${row.turn}`;
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(pick(row));
  }
  return groups;
}

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

/** A stored turn as the runner recorded it; stats only where they were recorded (absent, never zeros). */
function resumeTurn(row: TurnRow, sources: Source[] | undefined, followups: string[] | undefined): ResumeTurn {
  const error: QuestionError | undefined =
    row.error_code === null
      ? undefined
      : {
          code: row.error_code as QuestionError['code'],
          rawCode: row.error_raw_code ?? '',
          message: row.error_message ?? '',
          ...(row.error_title !== null && { title: row.error_title }),
          ...(row.error_details !== null && { details: row.error_details }),
          ...(row.error_retry_time !== null && { retryTime: row.error_retry_time }),
        };
  // Stats were recorded whole or not at all: no time_millis means none.
  const stats = row.time_millis === null ? undefined : statsFromSnakeCase(row);
  return {
    turn: row.turn,
    state: row.state as TurnState,
    text: row.text,
    questionId: opt(row.question_id),
    sentAt: opt(row.sent_at),
    error,
    clientError: opt(row.client_error),
    title: opt(row.title),
    answer: opt(row.answer),
    ...(isPartialAnswer(row.state, row.answer) && { partial: true }),
    sources,
    suggestedFollowups: followups,
    stats,
    observedEndAt: opt(row.observed_end_at),
    serverCreatedAt: opt(row.server_created_at),
    serverUpdatedAt: opt(row.server_updated_at),
    serverMs: opt(row.server_ms),
    serverMsSource: opt(row.server_ms_source) as ResumeTurn['serverMsSource'],
    wallMs: opt(row.wall_ms),
    polls: row.polls,
  };
}

/** Recorders of this process with a transaction open (more than one only when it writes several databases, or tests do). */
const openBatches = new Set<SqliteRecorder>();

/**
 * The runner's recorder over SQLite, with group commit: the first write opens one transaction, and it is
 * committed at the end of that turn of the event loop (or at once by `setRunStatus`, `createRun`,
 * `acquireLease` and `close`). `committed()` is what a request awaits before it is sent, so whatever it
 * depends on is committed first, while at high concurrency many items share one commit.
 *
 * `recordTurn` merges: a field absent from a record keeps what an earlier call wrote for that turn
 * (an observation is never erased by a later, less complete one); `state`, `text` and `polls` always
 * take the new value, and sources and suggested follow-ups are replaced whenever a record carries them.
 */
export class SqliteRecorder implements Recorder {
  private readonly s: ReturnType<typeof prepareStatements>;
  private readonly createRunTx: (info: RunInfo, targets: TargetInfo[], items: Iterable<PlannedItem>) => number;
  private readonly loadRunTx: (runId: number) => ResumeState | undefined;
  private readonly resumeItemsTx: (runId: number, each: (item: ResumeItem) => void) => void;
  private readonly begin: Database.Statement;
  private readonly commitStatement: Database.Statement;
  private readonly rollback: Database.Statement;
  /** A commit is scheduled for the end of this turn of the event loop. */
  private scheduled = false;
  private waiting: { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } | undefined;
  /** A commit failed: what was recorded since the last one is lost, and every later write and send fails with this. */
  private fault: unknown;
  /** The lease of the run this recorder writes, while held: no commit once another process took it over. */
  private lease: RunLease | undefined;
  private readonly commitFailureListeners: Array<(error: unknown) => void> = [];

  /** `file` names the database in the error of a commit that fails. */
  constructor(
    private readonly db: Database.Database,
    private readonly file = db.name,
  ) {
    this.s = prepareStatements(db);
    // IMMEDIATE: take the write lock up front so the busy timeout applies, rather than failing on upgrade.
    this.createRunTx = db.transaction(this.insertRun.bind(this)).immediate;
    // Deferred: a read-only snapshot, so run, items and turns agree with each other.
    this.loadRunTx = db.transaction(this.readRun.bind(this)).deferred;
    this.resumeItemsTx = db.transaction((runId: number, each: (item: ResumeItem) => void) => this.readItems(runId, 'unfinished', each)).deferred;
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commitStatement = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
  }

  inOneCommit<T>(write: () => T): T {
    this.batch();
    return write();
  }

  committed(): Promise<void> | undefined {
    if (this.fault !== undefined) return Promise.reject(this.fault);
    if (!this.scheduled) return undefined;
    if (!this.waiting) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((res, rej) => ([resolve, reject] = [res, rej]));
      this.waiting = { promise, resolve, reject };
    }
    return this.waiting.promise;
  }

  assertHeld(): void {
    if (this.fault instanceof LeaseLostError) throw this.fault;
    this.fence();
  }

  /** Fails (see `fail`) once the run this recorder writes was taken over by another process. */
  private fence(): void {
    try {
      this.lease?.fence();
    } catch (error) {
      if (this.fault === undefined) this.fail(error);
      throw this.fault;
    }
  }

  onCommitFailure(listener: (error: unknown) => void): void {
    this.commitFailureListeners.push(listener);
  }

  /**
   * Commits what was recorded, now: for a writer that hands the database to another connection without
   * yielding to the event loop (a run never needs it: its requests wait for `committed()`).
   */
  commit(): void {
    if (this.fault !== undefined) throw this.fault;
    this.commitNow();
  }

  /** Joins the open transaction, or opens one committed at the end of this turn of the event loop. */
  private batch(): void {
    if (this.fault !== undefined) throw this.fault;
    if (this.db.inTransaction) return;
    // Another connection of this process holding the write lock would make BEGIN wait on a commit that
    // only this thread can run: commit it first (committing early is always safe).
    for (const other of openBatches) if (other !== this) other.flush();
    this.begin.run();
    openBatches.add(this);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  private readonly flush = (): void => {
    try {
      this.commitNow();
    } catch (error) {
      if (this.fault === undefined) this.fail(error);
    }
  };

  /** The open transaction is lost: rolled back, and every later write, commit and send fails with `error`. */
  private fail(error: unknown): void {
    this.fault = storageErrorFrom(error, this.file) ?? error;
    try {
      if (this.db.inTransaction) this.rollback.run();
    } catch {
      // The commit's own failure is what is reported.
    }
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(this.fault);
    for (const listener of this.commitFailureListeners) listener(this.fault);
  }

  /** Commits what is recorded so far, now (synchronously); requests waiting for it may go. */
  private commitNow(): void {
    this.scheduled = false;
    openBatches.delete(this);
    if (this.db.inTransaction) {
      // In the transaction's own write lock: a process whose run another one took over (it had gone silent)
      // commits nothing more, and so sends no question, each waiting for its `sending` row to commit.
      this.fence();
      this.commitStatement.run();
    }
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve();
  }

  // The lease, the plan and a run's status are committed at once: another process acts on them.
  acquireLease(runId: number, staleMs: number): RunLease {
    const lease = acquireLease(this.db, runId, { staleMs });
    this.commitNow();
    this.lease = lease;
    return {
      ...lease,
      release: () => {
        if (this.lease === lease) this.lease = undefined;
        lease.release();
      },
    };
  }

  createRun(info: RunInfo, targets: TargetInfo[], items: Iterable<PlannedItem>): number {
    const runId = this.createRunTx(info, targets, items);
    this.commitNow();
    return runId;
  }

  loadRun(runId: number): ResumeState | undefined {
    return this.loadRunTx(runId);
  }

  loadRunInfo(runId: number): RunHeader | undefined {
    const header = this.readHeader(runId);
    return header && { ...header, itemCount: (this.s.countItems.get({ runId }) as { n: number }).n };
  }

  hasItem(runId: number, key: string): boolean {
    return this.s.hasItem.get({ runId, key }) !== undefined;
  }

  resumeItems(runId: number, each: (item: ResumeItem) => void): void {
    this.resumeItemsTx(runId, each);
  }

  serverTimesSeen(runId: number, each: (target: string, server: string, receivedAt: number) => void): void {
    for (const [target, server, local] of this.s.serverTimesSeen.raw().iterate(runId) as Iterable<[string, string, string]>) each(target, server, Date.parse(local));
  }

  setRunStatus(runId: number, status: RunStatus, at: string, stopReason?: 'budget'): void {
    this.batch();
    const { changes } = this.s.setRunStatus.run({ runId, status, at, stopReason: stopReason ?? null });
    if (changes === 0) throw new Error(`no run ${runId} in the database`);
    this.commitNow();
  }

  requeueStopped(runId: number, markers: readonly StoppedMarker[], at: string): RequeuedItem[] {
    this.batch();
    const moved = requeueStoppedItems(this.db, runId, markers, at);
    this.commitNow();
    return moved;
  }

  itemStarted(runId: number, key: string, at: string): void {
    this.updateItem(this.s.itemStarted, runId, key, at);
  }

  conversationCreated(runId: number, key: string, ref: string, at: string): void {
    this.updateItem(this.s.conversationCreated, runId, key, ref, at);
  }

  recordTurn(runId: number, key: string, turn: number, record: TurnRecord): void {
    // Inside inOneCommit the writes join its transaction rather than nest a savepoint.
    this.batch();
    onPlannedItem(runId, key, () => this.writeTurn(runId, key, turn, record));
  }

  unownedConversation(runId: number, target: string, conversation: UnownedConversation, at: string): void {
    this.batch();
    this.s.insertUnowned.run(runId, target, conversation.ref, conversation.text, conversation.createdAt ?? null, at);
  }

  lostCreate(runId: number, target: string, text: string, sentAt: string): void {
    this.batch();
    this.s.insertLostCreate.run(runId, target, text, sentAt);
  }

  lostCreates(runId: number, each: (target: string, text: string, sentAt: number) => void): void {
    for (const [target, text, sentAt] of this.s.selectLostCreates.raw().iterate(runId) as Iterable<[string, string, string]>) each(target, text, Date.parse(sentAt));
  }

  lostCreatesChecked(runId: number, target: string, at: string, error?: string): void {
    this.batch();
    // A failed check leaves the time of the last one that succeeded: it covered the sends up to then.
    this.s.lostCreatesChecked.run(error === undefined ? at : null, redacted(error), runId, target);
  }

  quotaSnapshot(runId: number, target: string, quota: QuotaUsage, at: string): void {
    this.batch();
    this.s.insertQuota.run({
      runId,
      target,
      at,
      totalQuota: quota.totalQuota,
      quotaLimit: quota.quotaLimit,
      resetTime: quota.resetTime ?? null,
    });
  }

  recordSearch(runId: number, key: string, search: SearchRecord): void {
    this.batch();
    onPlannedItem(runId, key, () => this.writeSearch(runId, key, search));
  }

  recordExpectations(runId: number, key: string, results: ExpectationResult[]): void {
    this.batch();
    onPlannedItem(runId, key, () => this.writeExpectations(runId, key, results));
  }

  itemFinished(runId: number, key: string, outcome: ItemOutcome, at: string, message?: string): void {
    this.updateItem(this.s.itemEnded, runId, key, 'done', outcome, redacted(message), at);
  }

  itemUnobserved(runId: number, key: string, message: string): void {
    this.updateItem(this.s.itemUnobserved, runId, key, redacted(message));
  }

  itemSkipped(runId: number, key: string, reason: string, at: string): void {
    this.updateItem(this.s.itemEnded, runId, key, 'skipped', 'skipped', redacted(reason), at);
  }

  targetServedByEmulator(runId: number, target: string): void {
    this.batch();
    this.s.targetServedByEmulator.run({ runId, target });
  }

  conversationDeleted(runId: number, key: string, at: string): void {
    this.updateItem(this.s.conversationDeleted, runId, key, at);
  }

  tally(runId: number): RunTally {
    return runTally(this.db, runId);
  }

  /** Commits what is recorded, then closes the database (also when that commit fails). */
  close(): void {
    if (!this.db.open) return;
    try {
      if (this.fault === undefined) this.commitNow();
    } finally {
      this.db.close();
    }
  }

  /** `values` are the statement's parameters before its `run_id = ? AND key = ?`. */
  private updateItem(statement: PositionalStatement, runId: number, key: string, ...values: Value[]): void {
    this.batch();
    // A silent no-op would hide a runner bug (a key it never planned); say so instead.
    if (statement.run(...values, runId, key).changes === 0) throw new Error(`no item ${key} in run ${runId}`);
  }

  private writeSearch(runId: number, key: string, search: SearchRecord): void {
    this.s.upsertSearch.run({
      runId,
      key,
      query: search.query,
      paramsJson: JSON.stringify(withoutSecretKeys(search.params)),
      verdict: search.verdict,
      matchCount: search.matchCount ?? null,
      counted: search.counted,
      countedByTypeJson: JSON.stringify(search.countedByType),
      repositories: search.repositories,
      files: search.files,
      repositoriesCount: search.repositoriesCount ?? null,
      exhaustive: bool(search.exhaustive),
      durationMs: search.durationMs ?? null,
      wallMs: search.wallMs,
      timeToFirstEventMs: search.timeToFirstEventMs ?? null,
      timeToFirstMatchMs: search.timeToFirstMatchMs ?? null,
      skippedJson: JSON.stringify(search.skipped),
      alert: search.alert ?? null,
      error: redacted(search.error),
      httpStatus: search.httpStatus ?? null,
    });
  }

  private insertRun(info: RunInfo, targets: TargetInfo[], items: Iterable<PlannedItem>): number {
    const runId = Number(
      this.s.insertRun.run({
        label: info.label ?? null,
        suiteName: info.suiteName,
        suitePath: info.suitePath,
        suiteHash: info.suiteHash,
        dsbenchVersion: info.dsbenchVersion,
        optionsJson: JSON.stringify(withoutSecretKeys(info.options)),
        startedAt: info.startedAt,
        groupId: info.group?.id ?? null,
        groupLabel: info.group?.label ?? null,
        shardIndex: info.group?.shardIndex ?? null,
        shardCount: info.group?.shardCount ?? null,
        rerunOf: info.rerunOf ?? null,
      }).lastInsertRowid,
    );
    for (const t of targets) {
      this.s.insertTarget.run({ runId, name: t.name, url: withoutUrlSecrets(t.url), api: t.api, emulated: t.emulated ? 1 : 0 });
    }
    let position = 0;
    for (const item of items) {
      this.s.insertItem.run(runId, item.key, item.position ?? position, item.kind, item.target, item.suiteItemId, item.repeat, JSON.stringify(item.tags));
      position++;
    }
    return runId;
  }

  private writeTurn(runId: number, key: string, turn: number, r: TurnRecord): void {
    const error = r.error;
    const stats = r.stats;
    this.s.upsertTurn.run(
      runId,
      key,
      turn,
      r.text,
      r.questionId ?? null,
      r.state,
      error?.code ?? null,
      error?.rawCode ?? null,
      error?.message ?? null,
      error?.title ?? null,
      error?.details ?? null,
      error?.retryTime ?? null,
      redacted(r.clientError),
      r.title ?? null,
      r.answer ?? null,
      r.sentAt ?? null,
      r.observedEndAt ?? null,
      r.serverCreatedAt ?? null,
      r.serverUpdatedAt ?? null,
      r.serverMs ?? null,
      r.serverMsSource ?? null,
      r.wallMs ?? null,
      r.polls,
      stats?.timeMillis ?? null,
      stats?.toolCalls ?? null,
      stats?.totalInputTokens ?? null,
      stats?.cachedTokens ?? null,
      stats?.cacheCreationInputTokens ?? null,
      stats?.promptTokens ?? null,
      stats?.completionTokens ?? null,
      stats?.totalTokens ?? null,
      stats?.credits ?? null,
      r.anomalies && r.anomalies.length > 0 ? JSON.stringify(r.anomalies) : null,
    );
    if (r.sources !== undefined) {
      this.s.deleteSources.run(runId, key, turn);
      r.sources.forEach((src, position) => this.s.insertSource.run(runId, key, turn, position, src.type, src.link, src.label));
    }
    if (r.suggestedFollowups !== undefined) {
      this.s.deleteFollowups.run(runId, key, turn);
      r.suggestedFollowups.forEach((text, position) => this.s.insertFollowup.run(runId, key, turn, position, text));
    }
  }

  private writeExpectations(runId: number, key: string, results: ExpectationResult[]): void {
    this.s.deleteExpectations.run({ runId, key });
    results.forEach((e, position) => {
      this.s.insertExpectation.run({
        runId,
        key,
        position,
        name: e.name,
        passed: e.passed ? 1 : 0,
        reason: e.reason,
        turn: e.turn ?? null,
      });
    });
  }

  private readRun(runId: number): ResumeState | undefined {
    const header = this.readHeader(runId);
    if (!header) return undefined;
    const items: ResumeItem[] = [];
    // A resumed item judges its expectations and totals on every turn, so turns come back whole.
    this.readItems(runId, 'all', (item) => items.push(item));
    return { ...header, items };
  }

  private readHeader(runId: number): Omit<ResumeState, 'items'> | undefined {
    const run = this.s.selectRun.get({ runId }) as RunRow | undefined;
    if (!run) return undefined;
    const targets = (this.s.selectTargets.all({ runId }) as TargetRow[]).map(
      (t): TargetInfo => ({ name: t.name, url: t.url, api: t.api, emulated: t.emulated === 1 }),
    );
    return {
      runId,
      status: run.status as RunStatus,
      info: {
        label: run.label ?? undefined,
        suiteName: run.suite_name,
        suitePath: run.suite_path,
        suiteHash: run.suite_hash,
        dsbenchVersion: run.dsbench_version,
        options: JSON.parse(run.options_json) as Record<string, unknown>,
        startedAt: run.started_at,
        ...(run.group_id !== null &&
          run.shard_index !== null && {
            group: { id: run.group_id, label: run.group_label ?? '', shardIndex: run.shard_index, shardCount: run.shard_count ?? run.shard_index },
          }),
      },
      targets,
    };
  }

  /**
   * Every item of the run in plan order, one at a time (`each` must not use this connection: the items
   * are read by a cursor), with its turns: all of them, or only those of items not done.
   */
  private readItems(runId: number, turnsOf: 'all' | 'unfinished', each: (item: ResumeItem) => void): void {
    const all = turnsOf === 'all';
    const sources = groupByTurn((all ? this.s.selectSources : this.s.selectUnfinishedSources).all({ runId }) as Array<ChildRow & Source>, ({ type, link, label }) => ({
      type,
      link,
      label,
    }));
    const followups = groupByTurn((all ? this.s.selectFollowups : this.s.selectUnfinishedFollowups).all({ runId }) as Array<ChildRow & { text: string }>, (r) => r.text);
    const turnsByItem = new Map<string, ResumeItem['turns']>();
    for (const row of (all ? this.s.selectTurns : this.s.selectUnfinishedTurns).all({ runId }) as TurnRow[]) {
      let list = turnsByItem.get(row.item_key);
      if (!list) turnsByItem.set(row.item_key, (list = []));
      const key = `${row.item_key}\u0000${row.turn}`;
      list.push(resumeTurn(row, sources.get(key), followups.get(key)));
    }
    for (const i of this.s.selectItems.iterate({ runId }) as IterableIterator<ItemRow>) {
      each({
        key: i.key,
        status: i.status as ItemStatus,
        outcome: (i.outcome ?? undefined) as ItemOutcome | undefined,
        conversationRef: i.conversation_ref ?? undefined,
        deleted: i.deleted_at !== null,
        turns: turnsByItem.get(i.key) ?? [],
      });
    }
  }
}

// The foreign key on (run, item key) is what catches a key the runner never planned; say which.
function onPlannedItem(runId: number, key: string, write: () => void): void {
  try {
    write();
  } catch (err) {
    if (err instanceof SqliteError && err.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
      throw new Error(`no item ${key} in run ${runId}`, { cause: err });
    }
    throw err;
  }
}

function bool(value: boolean | undefined): number | null {
  return value === undefined ? null : value ? 1 : 0;
}

// Client errors and messages are redacted by the runner already; once more costs nothing here.
function redacted(text: string | undefined): string | null {
  return text === undefined ? null : redact(text);
}

