import type Database from 'better-sqlite3';
import { LeaseLostError, StorageError } from '../errors/errors.js';
import type { RunLease } from '../model/lease.js';
import { storageErrorFrom } from './storage-error.js';

/** Group commits of this process with a transaction open (more than one only when it writes several databases, or tests do). */
const openBatches = new Set<GroupCommit>();

/**
 * The recorder's transactions: the first write opens one, and it is committed at the end of that turn of the
 * event loop (or at once, `commitNow`). `committed()` is what a request awaits before it is sent, so whatever
 * it depends on is committed first, while at high concurrency many items share one commit. A failed commit
 * (or a lost lease) is the fault every later write, commit and send fails with.
 */
export class GroupCommit {
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
  private readonly listeners: Array<(error: StorageError) => void> = [];
  /** The last storage failure the listeners heard of: a failure passed up through several calls is told once. */
  private told: StorageError | undefined;

  /** `file` names the database in a storage failure. */
  constructor(
    private readonly db: Database.Database,
    private readonly file: string,
  ) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commitStatement = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
  }

  onStorageFailure(listener: (error: StorageError) => void): void {
    this.listeners.push(listener);
  }

  /**
   * What a call of the recorder that threw `error` throws instead: a failure of SQLite or of the file system
   * as the StorageError naming the database, which the listeners hear of; anything else as it is.
   */
  thrown(error: unknown): unknown {
    const storage = storageErrorFrom(error, this.file);
    if (storage === undefined) return error;
    this.tell(storage);
    return storage;
  }

  private tell(error: StorageError): void {
    if (this.told === error) return;
    this.told = error;
    for (const listener of this.listeners) listener(error);
  }

  /** Joins the open transaction, or opens one committed at the end of this turn of the event loop. */
  batch(): void {
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

  /** Commits what was recorded, now; throws the fault when an earlier commit failed. */
  commit(): void {
    if (this.fault !== undefined) throw this.fault;
    this.commitNow();
  }

  /** Whether a commit failed (then nothing more is committed). */
  get failed(): boolean {
    return this.fault !== undefined;
  }

  /** Commits what is recorded so far, now (synchronously); requests waiting for it may go. */
  commitNow(): void {
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

  /** From now on no commit once `lease` is lost (until it is released). */
  hold(lease: RunLease): RunLease {
    this.lease = lease;
    return {
      ...lease,
      release: () => {
        if (this.lease === lease) this.lease = undefined;
        lease.release();
      },
    };
  }

  /** Throws LeaseLostError once another process took the run over. */
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
    if (this.fault instanceof StorageError) this.tell(this.fault);
  }
}
