import type { StorageError } from '../errors/errors.js';
import type { QuotaUsage } from '../model/conversation.js';
import type { ExpectationResult, ItemOutcome, PlannedItem, SearchRecord, TurnRecord } from '../model/item.js';
import type { RunLease } from '../model/lease.js';
import type { ProductVersionReading, RequeuedItem, ResumeItem, ResumeState, RunHeader, RunInfo, RunStatus, StoppedMarker, TargetInfo, UnownedConversation } from '../model/run.js';
import type { RunTally } from '../model/tally.js';

// The runner records through this interface and never speaks SQL; src/store/ implements it.
// Calls are committed in groups (see `committed`), and every request waits for the commit of what was
// recorded before it: a killed process loses nothing it acted on, only observations it had not acted on
// yet (a resume polls them again). No call carries a token or read token.

export interface Recorder {
  /**
   * Takes the run's lease for this process; throws (exit code runHeld) naming the holder when another live
   * process has it. `staleMs`: a heartbeat older than this is a gone holder.
   */
  acquireLease(runId: number, staleMs: number): RunLease;
  /** `items` is iterated once, inside the run's one transaction. */
  createRun(info: RunInfo, targets: TargetInfo[], items: Iterable<PlannedItem>): number;
  /** Undefined when there is no such run. */
  loadRun(runId: number): ResumeState | undefined;
  /** The run without its items; undefined when there is no such run. */
  loadRunInfo(runId: number): RunHeader | undefined;
  /** Whether the run planned an item with this key. */
  hasItem(runId: number, key: string): boolean;
  /**
   * What a resume needs of the run's items, read in one snapshot and handed to `each` one at a time in plan
   * order (`each` must not use the recorder): an item's turns come back only when it is not done, since a
   * done item is never asked or polled again. A half-done run of 100,000 items holds none of its answers.
   */
  resumeItems(runId: number, each: (item: ResumeItem) => void): void;
  /**
   * Each create the run recorded, in the order its reply arrived: the target, the conversation's server
   * create time and the local epoch ms its reply was recorded (after it arrived: a lower bound of the
   * server's time then, as a Date header is).
   */
  serverTimesSeen(runId: number, each: (target: string, server: string, receivedAt: number) => void): void;
  /** `stopReason`: `budget` for a run `--max-credits` stopped; cleared when the run runs again. */
  setRunStatus(runId: number, status: RunStatus, at: string, stopReason?: 'budget'): void;
  /**
   * Items dsbench itself stopped when the run was interrupted (`markers`) go back to `pending`, their
   * attempts kept as they ended (`requeued_attempts`); committed at once. Returns the items moved.
   */
  requeueStopped(runId: number, markers: readonly StoppedMarker[], at: string): RequeuedItem[];
  itemStarted(runId: number, key: string, at: string): void;
  conversationCreated(runId: number, key: string, ref: string, at: string): void;
  /** A target's replies say a dsbench emulator sent them (a standalone one, or the embedded one). */
  targetServedByEmulator(runId: number, target: string): void;
  /**
   * What the target said its product version is: the first version recorded stays (a resume that reads another
   * keeps it apart); an unknown one is filled in by a later reading. Returns the version kept, or null.
   */
  productVersion(runId: number, target: string, reading: ProductVersionReading): string | null;
  /** Inserts or updates one turn; `sending` is committed before the request so a crash leaves a trace. */
  recordTurn(runId: number, key: string, turn: number, record: TurnRecord): void;
  /** A conversation with one of the run's question texts that no item owns, found at `at`: a given-up send that landed after all. */
  unownedConversation(runId: number, target: string, conversation: UnownedConversation, at: string): void;
  /** A create of `text` sent at `sentAt` (ISO, local clock) was given up, its outcome unknown. */
  lostCreate(runId: number, target: string, text: string, sentAt: string): void;
  /** The run's given-up creates: each text with its earliest send (local epoch ms), by target. */
  lostCreates(runId: number, each: (target: string, text: string, sentAt: number) => void): void;
  /** The end-of-run check looked at every given-up create of `target` (`error` undefined), or could not (why). */
  lostCreatesChecked(runId: number, target: string, at: string, error?: string): void;
  quotaSnapshot(runId: number, target: string, quota: QuotaUsage, at: string): void;
  recordSearch(runId: number, key: string, search: SearchRecord): void;
  recordExpectations(runId: number, key: string, results: ExpectationResult[]): void;
  /** Forgets the trace links the item's turns and search recorded (`--trace failed`: an item that passed keeps none). */
  dropTraces(runId: number, key: string): void;
  itemFinished(runId: number, key: string, outcome: ItemOutcome, at: string, message?: string): void;
  itemSkipped(runId: number, key: string, reason: string, at: string): void;
  /**
   * The item's conversation exists but its outcome could not be observed (a request failed for good):
   * it stays running with this message, so a resume re-polls it instead of asking again.
   */
  itemUnobserved(runId: number, key: string, message: string): void;
  conversationDeleted(runId: number, key: string, at: string): void;
  /** Runs `write` (calls of this recorder) so that they are committed together: all of them or none. */
  inOneCommit<T>(write: () => T): T;
  /**
   * Resolves once everything recorded so far is committed (at the latest at the end of this turn of the
   * event loop, together with whatever other items recorded in it); undefined when it already is. Every
   * request waits for it before it is sent; it rejects with the storage error when the commit failed.
   */
  committed(): Promise<void> | undefined;
  /**
   * Throws LeaseLostError once another process took the run over: checked before a request that changes
   * the server without a commit first (a cancel, a delete), which the new holder's questions are now.
   */
  assertHeld(): void;
  /**
   * `listener` hears at once of every storage failure (SQLite or the file system, exit code 6): a write's,
   * which also throws to its caller, and a commit's, which runs after its writers returned. After a commit
   * failed, every write and `committed()` fail with that error.
   */
  onStorageFailure(listener: (error: StorageError) => void): void;
  /** What was recorded of the whole run, items finished before an interruption included. */
  tally(runId: number): RunTally;
  close(): void;
}
