import { z } from 'zod';
import { TraceRefSchema } from '../model/conversation.js';

/**
 * How a search ended, worst first:
 * - `http_error`: no 2xx reply (non-2xx status, or no reply at all: `failure` says which);
 * - `error`: an `error` event, a malformed event, or an alert with neither progress nor matches
 *   (the query did not parse);
 * - `truncated`: the stream ended without `done` (cut, stall, overall timeout, abort);
 * - `limit_hit`: `done` arrived but the search did not look everywhere: a skipped reason says so (a limit, a
 *   timeout, a missing repository, an unknown reason with a warning severity: see `incompleteSkipped`) or a
 *   final filter is not exhaustive;
 * - `complete`: `done` arrived and the search was exhaustive (a `display` cap alone still counts as complete:
 *   see `displayLimited`).
 */
export const VerdictSchema = z.enum(['complete', 'limit_hit', 'truncated', 'error', 'http_error']);
export type Verdict = z.infer<typeof VerdictSchema>;

export const SkippedSchema = z.object({
  /** Wire spelling: the web client's `shard-timedout` and `excluded-fork` are normalized to `shard-timeout` and `repository-fork`. */
  reason: z.string(),
  title: z.string(),
  message: z.string(),
  severity: z.string(),
  suggested: z.object({ title: z.string(), queryExpression: z.string() }).optional(),
});
export type Skipped = z.infer<typeof SkippedSchema>;

export const FilterSchema = z.object({
  value: z.string(),
  label: z.string(),
  count: z.number(),
  kind: z.string(),
  /** From `exhaustive`, or `!limitHit` on older servers. */
  exhaustive: z.boolean(),
});
export type Filter = z.infer<typeof FilterSchema>;

export const AlertSchema = z.object({
  title: z.string(),
  description: z.string().optional(),
  kind: z.string().optional(),
  proposedQueries: z.array(z.object({ query: z.string(), description: z.string().optional() })),
});
export type Alert = z.infer<typeof AlertSchema>;

/** Why the exchange stopped before a normal end; `exitCode` is the one the CLI should end with. */
export const FailureSchema = z.object({
  kind: z.enum(['http_status', 'connection', 'aborted', 'timeout', 'stall', 'ended_early', 'body', 'event_too_large']),
  message: z.string(),
  exitCode: z.number().int(),
});
export type Failure = z.infer<typeof FailureSchema>;

const count = z.number().int().nonnegative();
const ms = z.number().nonnegative();

/** Everything one streaming search observed; JSON-serializable, the single source of its type. */
export const SearchResultSchema = z.object({
  verdict: VerdictSchema,
  httpStatus: z.number().int().optional(),
  /** `content-encoding` of the reply body, when it had one. */
  contentEncoding: z.string().optional(),
  /** The reply came from a dsbench emulator (it names itself in a header), not a real instance. */
  servedByEmulator: z.boolean().optional(),
  /** The instance's trace of the request (X-Trace, X-Trace-URL), when it asked for one and the reply named it. */
  requestTrace: TraceRefSchema.optional(),
  /** True once the `done` event arrived. */
  done: z.boolean(),
  /** Server's figure from the last progress event; a lower bound when `skipped` is non-empty. */
  matchCount: count.optional(),
  /** Client's own count (wire counting rule) over match types it knows. */
  counted: count,
  /** Client count by known type: content, path, symbol, repo, commit, person, team (only types seen). */
  countedByType: z.record(z.string(), count),
  /** Match objects of known types received. */
  matchObjects: count,
  /** Objects of unknown `type`, by type: skipped, not part of `counted`. */
  unknownMatchTypes: z.record(z.string(), count),
  /** Items of a matches array that are not objects with a string `type`. */
  invalidMatches: count,
  /** Distinct repositories among matches (by 64-bit hash of the name). */
  repositories: count,
  /** Distinct files (repository + path) among content, path and symbol matches (by 64-bit hash). */
  files: count,
  /** True when a distinct-count table reached its cap: `repositories`/`files` are then lower bounds. */
  distinctCapped: z.boolean(),
  /** Server's repository count from the final progress event. */
  repositoriesCount: count.optional(),
  /** `done` arrived, no skipped reason says the search did not look everywhere, and every final filter is exhaustive. */
  exhaustive: z.boolean(),
  /** The server returned fewer matches than it found: a `display` skipped reason, or `counted < matchCount` after `done`. */
  displayLimited: z.boolean(),
  skipped: z.array(SkippedSchema),
  filters: z.array(FilterSchema),
  alerts: z.array(AlertSchema),
  /** Server `error` events, malformed events, an oversize event: in order of arrival. */
  errors: z.array(z.string()),
  failure: FailureSchema.optional(),
  /** Server's duration from the last progress event: the server's own clock, the figure compare prefers. */
  durationMs: ms.optional(),
  /**
   * dsbench's clock (monotonic), from sending the request that was answered (after any retry's wait and the
   * group commit) to `done` or to the end of the exchange; from the first attempt when none was answered.
   */
  wallMs: ms,
  timeToFirstEventMs: ms.optional(),
  timeToFirstMatchMs: ms.optional(),
  eventCount: count,
  /** Events of names the client does not know, by name (an event without a name counts as `message`). */
  unknownEvents: z.record(z.string(), count),
  /** Body bytes as received (compressed when gzip). */
  bytes: count,
  /** Body bytes after decompression. */
  decodedBytes: count,
  trace: z.string().optional(),
});
export type SearchResult = z.infer<typeof SearchResultSchema>;
