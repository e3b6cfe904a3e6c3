import Database from 'better-sqlite3';
import type { QuotaUsage } from '../model/conversation.js';
import type { ExpectationResult, ItemOutcome, PlannedItem, SearchRecord, TurnRecord } from '../model/item.js';
import type { RunLease } from '../model/lease.js';
import type { ProductVersionReading, RequeuedItem, ResumeItem, ResumeState, RunHeader, RunInfo, RunStatus, StoppedMarker, TargetInfo, UnownedConversation } from '../model/run.js';
import type { RunTally } from '../model/tally.js';
import type { Recorder } from '../runner/recorder.js';
import type { StorageError } from '../errors/errors.js';
import { GroupCommit } from './group-commit.js';
import { acquireLease } from './lease.js';
import { requeueStoppedItems } from './requeue.js';
import { prepareResumeReader } from './resume-reader.js';
import { prepareTraceWriters } from './trace-writers.js';
import { prepareRowWriters, redacted } from './row-writers.js';
import { runTally } from './tallies.js';

const { SqliteError } = Database;

type Params = Record<string, string | number | null>;

type Value = string | number | null;

// The statements of an item's state and the run's own. An item's updates run several times per question:
// bound by position (binding by name makes a string of each parameter's name on every call), the item's
// (run, key) last (see updateItem).
function prepareUpdates(db: Database.Database) {
  const s = (sql: string) => db.prepare<[Params]>(sql);
  const p = (sql: string) => db.prepare<Value[]>(sql);
  return {
    countItems: s(`SELECT count(*) AS n FROM items WHERE run_id = @runId`),
    hasItem: s(`SELECT 1 FROM items WHERE run_id = @runId AND key = @key`),
    serverTimesSeen: s(`SELECT i.target, t.server_created_at AS server, i.conversation_created_at AS receivedAt FROM items i
      JOIN turns t ON t.run_id = i.run_id AND t.item_key = i.key AND t.turn = 0
      WHERE i.run_id = @runId AND i.conversation_created_at IS NOT NULL AND t.server_created_at IS NOT NULL
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
    itemStarted: p(`UPDATE items SET status = 'running', started_at = coalesce(started_at, ?) WHERE run_id = ? AND key = ?`),
    conversationCreated: p(`UPDATE items SET conversation_ref = ?, conversation_created_at = ? WHERE run_id = ? AND key = ?`),
    itemEnded: p(`UPDATE items SET status = ?, outcome = ?, message = ?, ended_at = ? WHERE run_id = ? AND key = ?`),
    itemUnobserved: p(`UPDATE items SET status = 'running', message = ? WHERE run_id = ? AND key = ?`),
    conversationDeleted: p(`UPDATE items SET deleted_at = ? WHERE run_id = ? AND key = ?`),
    targetServedByEmulator: s(`UPDATE targets SET emulator = 1 WHERE run_id = @runId AND name = @target`),
    // The first version read stays; a later different one is kept apart, an unknown one is filled in.
    productVersion: s(`UPDATE targets SET product_version = coalesce(product_version, @version),
        product_version_error = CASE WHEN coalesce(product_version, @version) IS NULL THEN coalesce(product_version_error, @error) END,
        product_version_on_resume = CASE WHEN @version <> product_version THEN @version ELSE product_version_on_resume END
      WHERE run_id = @runId AND name = @target RETURNING product_version AS version`),
    selectLostCreates: s(`SELECT target, text, min(sent_at) AS sentAt FROM lost_creates WHERE run_id = @runId GROUP BY target, text`),
    lostCreatesChecked: s(`UPDATE lost_creates SET checked_at = coalesce(@at, checked_at), check_error = @error WHERE run_id = @runId AND target = @target`),
  };
}

/**
 * The runner's recorder over SQLite, with group commit (see GroupCommit): `setRunStatus`, `createRun`,
 * `requeueStopped`, `acquireLease` and `close` commit at once. Every call translates its own failures: one
 * of SQLite or of the file system throws the StorageError naming the database, which `onStorageFailure`'s
 * listeners hear of too.
 *
 * `recordTurn` merges: a field absent from a record keeps what an earlier call wrote for that turn
 * (an observation is never erased by a later, less complete one); `state`, `text` and `polls` always
 * take the new value, and sources and suggested follow-ups are replaced whenever a record carries them.
 */
export class SqliteRecorder implements Recorder {
  private readonly s: ReturnType<typeof prepareUpdates>;
  private readonly write: ReturnType<typeof prepareRowWriters>;
  private readonly traces: ReturnType<typeof prepareTraceWriters>;
  private readonly read: ReturnType<typeof prepareResumeReader>;
  private readonly commits: GroupCommit;
  private readonly createRunTx: (info: RunInfo, targets: TargetInfo[], items: Iterable<PlannedItem>) => number;
  private readonly loadRunTx: (runId: number) => ResumeState | undefined;
  private readonly resumeItemsTx: (runId: number, each: (item: ResumeItem) => void) => void;

  /** `file` names the database in a storage failure. */
  constructor(
    private readonly db: Database.Database,
    file = db.name,
  ) {
    this.s = prepareUpdates(db);
    this.write = prepareRowWriters(db);
    this.traces = prepareTraceWriters(db);
    this.read = prepareResumeReader(db);
    this.commits = new GroupCommit(db, file);
    // IMMEDIATE: take the write lock up front so the busy timeout applies, rather than failing on upgrade.
    this.createRunTx = db.transaction(this.write.run).immediate;
    // Deferred: a read-only snapshot, so run, items and turns agree with each other.
    this.loadRunTx = db.transaction((runId: number) => this.readRun(runId)).deferred;
    this.resumeItemsTx = db.transaction((runId: number, each: (item: ResumeItem) => void) => this.read.items(runId, 'unfinished', each)).deferred;
  }

  onStorageFailure(listener: (error: StorageError) => void): void {
    this.commits.onStorageFailure(listener);
  }

  inOneCommit<T>(write: () => T): T {
    try {
      this.commits.batch();
      return write();
    } catch (error) {
      throw this.commits.thrown(error);
    }
  }

  committed(): Promise<void> | undefined {
    return this.commits.committed();
  }

  assertHeld(): void {
    try {
      this.commits.assertHeld();
    } catch (error) {
      throw this.commits.thrown(error);
    }
  }

  /**
   * Commits what was recorded, now: for a writer that hands the database to another connection without
   * yielding to the event loop (a run never needs it: its requests wait for `committed()`).
   */
  commit(): void {
    try {
      this.commits.commit();
    } catch (error) {
      throw this.commits.thrown(error);
    }
  }

  // The lease, the plan and a run's status are committed at once: another process acts on them.
  acquireLease(runId: number, staleMs: number): RunLease {
    const lease = this.atOnce(() => acquireLease(this.db, runId, { staleMs }), false);
    return this.commits.hold(lease);
  }

  createRun(info: RunInfo, targets: TargetInfo[], items: Iterable<PlannedItem>): number {
    return this.atOnce(() => this.createRunTx(info, targets, items), false);
  }

  loadRun(runId: number): ResumeState | undefined {
    return this.reading(() => this.loadRunTx(runId));
  }

  loadRunInfo(runId: number): RunHeader | undefined {
    return this.reading(() => {
      const header = this.read.header(runId);
      return header && { ...header, itemCount: (this.s.countItems.get({ runId }) as { n: number }).n };
    });
  }

  hasItem(runId: number, key: string): boolean {
    return this.reading(() => this.s.hasItem.get({ runId, key }) !== undefined);
  }

  resumeItems(runId: number, each: (item: ResumeItem) => void): void {
    this.reading(() => this.resumeItemsTx(runId, each));
  }

  serverTimesSeen(runId: number, each: (target: string, server: string, receivedAt: number) => void): void {
    this.reading(() => {
      for (const row of this.s.serverTimesSeen.iterate({ runId }) as Iterable<{ target: string; server: string; receivedAt: string }>) {
        each(row.target, row.server, Date.parse(row.receivedAt));
      }
    });
  }

  setRunStatus(runId: number, status: RunStatus, at: string, stopReason?: 'budget'): void {
    this.atOnce(() => {
      const { changes } = this.s.setRunStatus.run({ runId, status, at, stopReason: stopReason ?? null });
      if (changes === 0) throw new Error(`no run ${runId} in the database`);
    });
  }

  requeueStopped(runId: number, markers: readonly StoppedMarker[], at: string): RequeuedItem[] {
    return this.atOnce(() => requeueStoppedItems(this.db, runId, markers, at));
  }

  itemStarted(runId: number, key: string, at: string): void {
    this.updateItem(this.s.itemStarted, runId, key, at);
  }

  conversationCreated(runId: number, key: string, ref: string, at: string): void {
    this.updateItem(this.s.conversationCreated, runId, key, ref, at);
  }

  recordTurn(runId: number, key: string, turn: number, record: TurnRecord): void {
    this.writing(() =>
      onPlannedItem(runId, key, () => {
        this.write.turn({ runId, itemKey: key }, turn, record);
        if (record.traces) this.traces.turn({ runId, itemKey: key }, turn, record.traces);
      }),
    );
  }

  unownedConversation(runId: number, target: string, conversation: UnownedConversation, at: string): void {
    this.writing(() => this.write.unowned(runId, target, conversation, at));
  }

  lostCreate(runId: number, target: string, text: string, sentAt: string): void {
    this.writing(() => this.write.lostCreate(runId, target, text, sentAt));
  }

  lostCreates(runId: number, each: (target: string, text: string, sentAt: number) => void): void {
    this.reading(() => {
      for (const row of this.s.selectLostCreates.iterate({ runId }) as Iterable<{ target: string; text: string; sentAt: string }>) {
        each(row.target, row.text, Date.parse(row.sentAt));
      }
    });
  }

  lostCreatesChecked(runId: number, target: string, at: string, error?: string): void {
    // A failed check leaves the time of the last one that succeeded: it covered the sends up to then.
    this.writing(() => this.s.lostCreatesChecked.run({ runId, target, at: error === undefined ? at : null, error: redacted(error) }));
  }

  quotaSnapshot(runId: number, target: string, quota: QuotaUsage, at: string): void {
    this.writing(() => this.write.quota(runId, target, quota, at));
  }

  recordSearch(runId: number, key: string, search: SearchRecord): void {
    this.writing(() =>
      onPlannedItem(runId, key, () => {
        this.write.search({ runId, itemKey: key }, search);
        if (search.trace) this.traces.search({ runId, itemKey: key }, search.trace);
      }),
    );
  }

  recordExpectations(runId: number, key: string, results: ExpectationResult[]): void {
    this.writing(() => onPlannedItem(runId, key, () => this.write.expectations({ runId, itemKey: key }, results)));
  }

  dropTraces(runId: number, key: string): void {
    this.writing(() => this.traces.drop({ runId, itemKey: key }));
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
    this.writing(() => this.s.targetServedByEmulator.run({ runId, target }));
  }

  productVersion(runId: number, target: string, reading: ProductVersionReading): string | null {
    const version = 'version' in reading ? reading.version : null;
    const error = 'unknown' in reading ? redacted(reading.unknown) : null;
    return this.writing(() => (this.s.productVersion.get({ runId, target, version, error }) as { version: string | null } | undefined)?.version ?? null);
  }

  conversationDeleted(runId: number, key: string, at: string): void {
    this.updateItem(this.s.conversationDeleted, runId, key, at);
  }

  tally(runId: number): RunTally {
    return this.reading(() => runTally(this.db, runId));
  }

  /** Commits what is recorded, then closes the database (also when that commit fails). */
  close(): void {
    if (!this.db.open) return;
    try {
      if (!this.commits.failed) this.commits.commitNow();
    } catch (error) {
      throw this.commits.thrown(error);
    } finally {
      this.db.close();
    }
  }

  /** A read: its failure translated. */
  private reading<T>(read: () => T): T {
    try {
      return read();
    } catch (error) {
      throw this.commits.thrown(error);
    }
  }

  /** A write in the open transaction (inside inOneCommit, it joins that one rather than nest a savepoint). */
  private writing<T>(write: () => T): T {
    try {
      this.commits.batch();
      return write();
    } catch (error) {
      throw this.commits.thrown(error);
    }
  }

  /** `work` in the open transaction (`batch`; else it opens its own), committed at once. */
  private atOnce<T>(work: () => T, batch = true): T {
    try {
      if (batch) this.commits.batch();
      const result = work();
      this.commits.commitNow();
      return result;
    } catch (error) {
      throw this.commits.thrown(error);
    }
  }

  /** `values` are the statement's parameters before its `run_id = ? AND key = ?`. */
  private updateItem(statement: Database.Statement<Value[]>, runId: number, key: string, ...values: Value[]): void {
    try {
      this.commits.batch();
      // A silent no-op would hide a runner bug (a key it never planned); say so instead.
      if (statement.run(...values, runId, key).changes === 0) throw new Error(`no item ${key} in run ${runId}`);
    } catch (error) {
      throw this.commits.thrown(error);
    }
  }

  private readRun(runId: number): ResumeState | undefined {
    const header = this.read.header(runId);
    if (!header) return undefined;
    const items: ResumeItem[] = [];
    // A resumed item judges its expectations and totals on every turn, so turns come back whole.
    this.read.items(runId, 'all', (item) => items.push(item));
    return { ...header, items };
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
