import type { TraceRef } from '../model/conversation.js';
import type { MatchBatch } from './batch.js';
import { DistinctCounter } from './distinct.js';
import type { Progress } from './events.js';
import { KNOWN_TYPES } from './match-types.js';
import { SearchResultSchema, type Alert, type Failure, type Filter, type SearchResult } from './result.js';
import { incompleteSkipped, verdictOf } from './search-verdict.js';

export interface TallyOptions {
  /** Cap of each distinct-count table. */
  maxDistinct: number;
}

/**
 * Everything a stream showed, accumulated event by event, in memory bounded by the distinct-count tables:
 * matches are counted, never kept.
 */
export class Tally {
  /** When the request went out: the search's start until the answered attempt's own (`sent`). */
  private startedAt = performance.now();
  httpStatus: number | undefined;
  contentEncoding: string | undefined;
  servedByEmulator: boolean | undefined;
  requestTrace: TraceRef | undefined;
  bytes = 0;
  decodedBytes = 0;
  done = false;
  eventCount = 0;
  private noReply = false;
  private failure: Failure | undefined;
  private endedAt: number | undefined;
  private firstEventAt: number | undefined;
  private firstMatchAt: number | undefined;
  private readonly unknownEvents = new Map<string, number>();
  private readonly counted = new Float64Array(KNOWN_TYPES.length);
  private matchObjects = 0;
  private invalidMatches = 0;
  private readonly unknownMatchTypes = new Map<string, number>();
  private readonly repositories: DistinctCounter;
  private readonly files: DistinctCounter;
  private progress: Progress | undefined;
  private repositoriesCount: number | undefined;
  private trace: string | undefined;
  private filters: Filter[] = [];
  private readonly alerts: Alert[] = [];
  private readonly errors: string[] = [];
  private errored = false;

  constructor(options: TallyOptions) {
    this.repositories = new DistinctCounter(options.maxDistinct);
    this.files = new DistinctCounter(options.maxDistinct);
  }

  /** The answered attempt went out at `at` (performance.now()): earlier attempts and waits are not the search's time. */
  sent(at: number): void {
    this.startedAt = at;
  }

  countEvent(): void {
    this.eventCount++;
    this.firstEventAt ??= performance.now();
  }

  unknownEvent(name: string): void {
    bump(this.unknownEvents, name);
  }

  matches(batch: MatchBatch): void {
    for (let i = 0; i < this.counted.length; i++) this.counted[i]! += batch.counted[i]!;
    this.matchObjects += batch.objects;
    this.invalidMatches += batch.invalid;
    for (const [type, n] of batch.unknown ?? []) bump(this.unknownMatchTypes, type, n);
    this.repositories.addAll(batch.repoKeys, batch.repoLength);
    this.files.addAll(batch.fileKeys, batch.fileLength);
    if (batch.objects > 0) this.firstMatchAt ??= performance.now();
  }

  progressEvent(p: Progress): void {
    this.progress = p;
    if (p.repositoriesCount !== undefined) this.repositoriesCount = p.repositoriesCount;
    if (p.trace !== undefined) this.trace = p.trace;
  }

  filtersEvent(filters: Filter[]): void {
    this.filters = filters;
  }

  alert(alert: Alert): void {
    this.alerts.push(alert);
  }

  /** A server `error` event, a malformed event, an oversize event. */
  error(message: string): void {
    this.errored = true;
    this.errors.push(message);
  }

  doneEvent(): void {
    this.done = true;
    this.endedAt = performance.now();
  }

  /** Records why the exchange stopped early; the first reason wins. */
  fail(failure: Failure, noReply = false): void {
    this.failure ??= failure;
    this.noReply ||= noReply;
  }

  end(): void {
    this.endedAt ??= performance.now();
  }

  result(): SearchResult {
    const skipped = this.progress?.skipped ?? [];
    const counted = this.counted.reduce((a, b) => a + b, 0);
    const matchCount = this.progress?.matchCount;
    const countedByType: Record<string, number> = {};
    KNOWN_TYPES.forEach((type, i) => {
      if (this.counted[i]! > 0) countedByType[type] = this.counted[i]!;
    });
    const since = (t: number | undefined): number | undefined => (t === undefined ? undefined : t - this.startedAt);
    return SearchResultSchema.parse({
      verdict: verdictOf({
        noReply: this.noReply,
        errored: this.errored,
        alerts: this.alerts.length,
        progressSeen: this.progress !== undefined,
        matchObjects: this.matchObjects,
        done: this.done,
        skipped,
        filters: this.filters,
      }),
      httpStatus: this.httpStatus,
      contentEncoding: this.contentEncoding,
      servedByEmulator: this.servedByEmulator,
      ...(this.requestTrace && { requestTrace: this.requestTrace }),
      done: this.done,
      matchCount,
      counted,
      countedByType,
      matchObjects: this.matchObjects,
      unknownMatchTypes: Object.fromEntries(this.unknownMatchTypes),
      invalidMatches: this.invalidMatches,
      repositories: this.repositories.size,
      files: this.files.size,
      distinctCapped: this.repositories.capped || this.files.capped,
      repositoriesCount: this.repositoriesCount,
      exhaustive: this.done && !incompleteSkipped(skipped) && this.filters.every((f) => f.exhaustive),
      displayLimited: skipped.some((s) => s.reason === 'display') || (this.done && matchCount !== undefined && counted < matchCount),
      skipped,
      filters: this.filters,
      alerts: this.alerts,
      errors: this.errors,
      failure: this.failure,
      durationMs: this.progress?.durationMs,
      wallMs: (this.endedAt ?? performance.now()) - this.startedAt,
      timeToFirstEventMs: since(this.firstEventAt),
      timeToFirstMatchMs: since(this.firstMatchAt),
      eventCount: this.eventCount,
      unknownEvents: Object.fromEntries(this.unknownEvents),
      bytes: this.bytes,
      decodedBytes: this.decodedBytes,
      trace: this.trace,
    });
  }
}

function bump(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}
