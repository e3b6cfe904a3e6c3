import type { Filter, Skipped, Verdict } from './result.js';

export interface VerdictInputs {
  /** No 2xx reply: a non-2xx status or no reply at all. */
  noReply: boolean;
  /** An `error` event, a malformed event or an oversize event. */
  errored: boolean;
  alerts: number;
  progressSeen: boolean;
  matchObjects: number;
  done: boolean;
  skipped: readonly Skipped[];
  filters: readonly Filter[];
}

/** Any skipped reason containing `-limit` means the search was cut short by a limit. */
export function limitSkipped(skipped: readonly Skipped[]): boolean {
  return skipped.some((s) => s.reason.includes('-limit'));
}

/** The verdict, worst first (see `VerdictSchema`). */
export function verdictOf(v: VerdictInputs): Verdict {
  if (v.noReply) return 'http_error';
  // A query that does not parse gets an alert and `done`, with neither progress nor matches.
  if (v.errored || (v.alerts > 0 && !v.progressSeen && v.matchObjects === 0)) return 'error';
  if (!v.done) return 'truncated';
  if (limitSkipped(v.skipped) || v.filters.some((f) => !f.exhaustive)) return 'limit_hit';
  return 'complete';
}
