// One unit of a run's work (a question or a search, with its repeat) and what is recorded of it.
import type { QuestionError, QuestionState, Source, Stats, TraceRef } from './conversation.js';
import type { TracedRequest } from './trace.js';

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
  /** Hash of what defines the item (see `definitionHash`): an edit under the same id changes it. */
  definitionHash?: string | undefined;
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
  /** The traces of the turn's requests the instance named (run --trace): its send's, then its polls'. */
  traces?: TracedRequest[] | undefined;
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
  /** The search request's trace, when it asked for one and the instance named it (run --trace). */
  trace?: TraceRef | undefined;
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
