import { DsbenchError } from '../http/errors.js';
import { ExitCode } from '../http/exit-codes.js';
import type { VerdictOutcome } from './verdict.js';
import type { QuestionError, QuestionState, QuotaUsage, Source, Stats } from '../deepsearch/model.js';

// The runner records through this interface and never speaks SQL; src/store/ implements it.
// Calls are committed in groups (see `committed`), and every request waits for the commit of what was
// recorded before it: a killed process loses nothing it acted on, only observations it had not acted on
// yet (a resume polls them again). No call carries a token or read token.

export type RunStatus = 'running' | 'completed' | 'aborted' | 'failed';

export interface RunInfo {
  label: string | undefined;
  suiteName: string;
  suitePath: string;
  /** sha256 of the suite file's bytes. */
  suiteHash: string;
  dsbenchVersion: string;
  /** Options the run was started with (concurrency, repeats, on-quota, ...), secrets excluded. */
  options: Record<string, unknown>;
  startedAt: string;
  /** Set on a shard of a run split across machines (`--shard`). */
  group?: RunGroupInfo | undefined;
  /** The run `run --rerun-failed` took this one's items from. */
  rerunOf?: number | undefined;
}

/** Shards of one run share a group; `dsbench merge` puts them back together into one run. */
export interface RunGroupInfo {
  /** From the suite's hash, the targets and the group label (see runGroupId). */
  id: string;
  /** `--group`: tells one nightly's shards from another's. */
  label: string;
  /** 1-based. */
  shardIndex: number;
  shardCount: number;
}

export interface TargetInfo {
  name: string;
  url: string;
  api: 'legacy' | 'versioned';
  emulated: boolean;
}

export type ItemKind = 'question' | 'search';

/** One unit of work; `key` is stable across resumes: `<target>/<kind>/<id>/<repeat>`. */
export interface PlannedItem {
  key: string;
  kind: ItemKind;
  target: string;
  /** Question id or search id from the suite. */
  suiteItemId: string;
  repeat: number;
  tags: string[];
  /** Place in the whole plan; a shard keeps the unsharded places, so merged shards read in plan order. Default: index in the list. */
  position?: number | undefined;
}

/** Where an item is; `done` items are never run again on resume. */
export type ItemStatus = 'pending' | 'running' | 'done' | 'skipped';

/**
 * How an item ended: a question's final state (`timeout` when dsbench gave up and cancelled it,
 * `client_error` when a request failed), or a search's verdict.
 */
export type ItemOutcome = QuestionState | 'timeout' | 'client_error' | 'skipped' | SearchVerdict;

export type SearchVerdict = 'complete' | 'limit_hit' | 'truncated' | 'error' | 'http_error';

/** A turn is one asked question of a conversation: 0 is the first question, then each follow-up. */
export type TurnState = QuestionState | 'sending' | 'timeout' | 'client_error';

export interface TurnRecord {
  state: TurnState;
  text: string;
  questionId?: string | undefined;
  error?: QuestionError | undefined;
  /** A client-side failure (HTTP status, endpoint), redacted. */
  clientError?: string | undefined;
  title?: string | undefined;
  answer?: string | undefined;
  /**
   * The answer came with an error state (or a cancel): what was written before it stopped. Not stored on its
   * own: a turn's answer with a state other than completed is partial (isPartialAnswer).
   */
  partial?: boolean | undefined;
  sources?: Source[] | undefined;
  suggestedFollowups?: string[] | undefined;
  /** Absent (not zero) where the API has none. */
  stats?: Stats | undefined;
  /** Figures of the reply that cannot be true (then `stats` is absent). */
  anomalies?: string[] | undefined;
  /** When the question was sent, and when its end was observed (ISO 8601, local clock). */
  sentAt?: string | undefined;
  observedEndAt?: string | undefined;
  /** Server timestamps as given. */
  serverCreatedAt?: string | undefined;
  serverUpdatedAt?: string | undefined;
  /** Latency from the server (legacy stats.time_millis; versioned createTime to updateTime). */
  serverMs?: number | undefined;
  serverMsSource?: 'stats.time_millis' | 'timestamps' | undefined;
  /** Observed latency from sending to seeing the end: depends on when dsbench polled. */
  wallMs?: number | undefined;
  polls: number;
}

export interface SearchRecord {
  query: string;
  params: Record<string, unknown>;
  verdict: SearchVerdict;
  matchCount?: number | undefined;
  counted: number;
  countedByType: Record<string, number>;
  repositories: number;
  files: number;
  repositoriesCount?: number | undefined;
  exhaustive?: boolean | undefined;
  durationMs?: number | undefined;
  wallMs: number;
  timeToFirstEventMs?: number | undefined;
  timeToFirstMatchMs?: number | undefined;
  skipped: Array<{ reason: string; title?: string | undefined; severity?: string | undefined }>;
  alert?: string | undefined;
  error?: string | undefined;
  httpStatus?: number | undefined;
}

export interface ExpectationResult {
  /** e.g. `contains`, `state`, `maxCredits`, `exhaustive`. */
  name: string;
  passed: boolean;
  /** Why it passed or failed, in words: expected and actual. */
  reason: string;
  /** Which turn it was checked on, when it is about one turn. */
  turn?: number | undefined;
}

/**
 * A recorded turn as a resumed run reads it back. `state`, `questionId` and `sentAt` are what resuming
 * needs; the rest of the record (answer, error, sources, stats, server latency, ...) lets a resumed item
 * judge its expectations and totals on every turn, those finished before the interruption included.
 */
export type ResumeTurn = { turn: number; state: TurnState; questionId?: string | undefined; sentAt?: string | undefined } & Partial<
  Omit<TurnRecord, 'state' | 'questionId' | 'sentAt'>
>;

/** What a resumed run needs to know about an item. */
export interface ResumeItem {
  key: string;
  status: ItemStatus;
  outcome?: ItemOutcome | undefined;
  conversationRef?: string | undefined;
  /** Its conversation was deleted by --cleanup. */
  deleted?: boolean | undefined;
  turns: ResumeTurn[];
}

export interface ResumeState {
  runId: number;
  status: RunStatus;
  info: RunInfo;
  targets: TargetInfo[];
  items: ResumeItem[];
}

/** An item a resume runs again because dsbench itself stopped it when its run was interrupted. */
export interface RequeuedItem {
  key: string;
  target: string;
  /** The stopped attempt's conversation: the run still owns it (a lost send is never matched to it). */
  conversationRef: string | null;
}

/** How dsbench records an item it stopped itself when a run is interrupted: its kind, outcome and message. */
export interface StoppedMarker {
  kind: ItemKind;
  outcome: ItemOutcome;
  message: string;
}

/** A run without its items, and how many it has. */
export type RunHeader = Omit<ResumeState, 'items'> & { itemCount: number };

/** The process that holds a run's lease. */
export interface LeaseHolder {
  pid: number;
  host: string;
  acquiredAt: string;
  heartbeatAt: string;
}

/**
 * Another process took this run over while this one still held it (its heartbeat had gone silent): this one
 * asks, cancels and records nothing more; the run goes on there.
 */
export class LeaseLostError extends DsbenchError {
  constructor(runId: number, takenBy: string) {
    super(
      `run ${runId} was taken over by another dsbench (${takenBy}) after this one went silent: ` +
        'this process stopped, asking, cancelling and recording nothing more; the run goes on in that process',
      ExitCode.runHeld,
    );
  }
}

/** This process's hold on a run: only the holder runs or resumes it. */
export interface RunLease {
  /** Set when a lease of a gone or silent process was taken over: what to log. */
  readonly takeover: string | undefined;
  /**
   * Local epoch ms by which the run's earlier processes had given up every request they sent: when the
   * lease was taken, if they had released it (after their clients closed) or are provably gone. Undefined
   * when a holder only went silent: it may be alive on another host, its sends still waiting for replies.
   */
  readonly earlierSendsGivenUpBy: number | undefined;
  /** Refreshes the heartbeat; undefined while the lease is ours, else who has it now. */
  heartbeat(): string | undefined;
  /** Throws LeaseLostError unless the lease is still ours: checked in each commit's own transaction. */
  fence(): void;
  release(): void;
}

/** Items of one kind on one target: by outcome (unfinished ones by status), and their checks. */
export interface KindTally {
  counts: Record<string, number>;
  /** Of those counts, the failures the suite expected (see failureClass): shown as such, not as errors. */
  expected: Record<string, number>;
  passed: number;
  failed: number;
}

/** One target's share of a run: items by outcome (unfinished ones by status), credits, checks; and per kind. */
/** A conversation on a target, asking `text`, that no item of the run owns. */
export interface UnownedConversation {
  ref: string;
  text: string;
  createdAt?: string | undefined;
}

export interface TargetTally {
  counts: Record<string, number>;
  /** Null when no turn reported credits (the versioned API reports no stats): not measured, not zero. */
  credits: number | null;
  passed: number;
  failed: number;
  questions: KindTally;
  searches: KindTally;
  /** Conversations with the run's question texts that no item owns: sends that landed after they were asked again. */
  unownedConversations: number;
  /** Texts of creates given up, and how many of them no end-of-run check has looked for (and why, if it failed). */
  lostCreates: { texts: number; unchecked: number; error: string | null };
  /**
   * Attempts dsbench itself stopped when the run was interrupted (a question it cancelled, a search it cut)
   * whose items a resume ran again, and their credits: asked again after our own cancel, not asked twice.
   */
  rerunAfterInterruption: { attempts: number; credits: number | null };
}

export function emptyTargetTally(): TargetTally {
  const kind = (): KindTally => ({ counts: {}, expected: {}, passed: 0, failed: 0 });
  return { counts: {}, credits: null, passed: 0, failed: 0, questions: kind(), searches: kind(), unownedConversations: 0, lostCreates: { texts: 0, unchecked: 0, error: null }, rerunAfterInterruption: { attempts: 0, credits: null } };
}

/** Everything the verdict of a whole run needs, read from what was recorded (items finished before a resume included). */
export interface RunTally {
  targets: Record<string, TargetTally>;
  items: Array<{ kind: ItemKind; outcome: VerdictOutcome; httpStatus: number | null; count: number }>;
  checks: { passed: number; failed: number };
}

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
   * `listener` hears at once of a commit that failed (a write that fails throws to its caller, but a commit
   * runs after its writers returned): from then on every write and `committed()` fail with that error.
   */
  onCommitFailure(listener: (error: unknown) => void): void;
  /** What was recorded of the whole run, items finished before an interruption included. */
  tally(runId: number): RunTally;
  close(): void;
}
