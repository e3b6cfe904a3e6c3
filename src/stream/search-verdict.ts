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

// Reasons that only say what the query left out on purpose (forks, archives) or how many matches were
// sent: the search still looked everywhere it was asked to.
const LOOKED_EVERYWHERE = new Set(['excluded-archive', 'excluded-fork', 'repository-fork', 'display']);
// Reasons that name places the search could not look at, whatever their severity.
const NOT_LOOKED = new Set(['repository-missing', 'repository-cloning', 'backend-missing', 'error']);

/**
 * True when a skipped reason means the search did not look everywhere: a limit (`*-limit`), a timeout
 * (`shard-timeout`, `shard-timedout`, any `timeout`), a missing or cloning repository, a backend down, or
 * a reason this client does not know that the server marks as a warning or worse.
 */
export function incompleteSkipped(skipped: readonly Skipped[]): boolean {
  return skipped.some((s) => {
    const reason = s.reason.toLowerCase();
    if (LOOKED_EVERYWHERE.has(reason)) return false;
    if (reason.includes('limit') || reason.includes('timeout') || reason.includes('timedout') || NOT_LOOKED.has(reason)) return true;
    return /^(warn|warning|error|critical)$/i.test(s.severity.trim());
  });
}

/** The verdict, worst first (see `VerdictSchema`). */
export function verdictOf(v: VerdictInputs): Verdict {
  if (v.noReply) return 'http_error';
  // A query that does not parse gets an alert and `done`, with neither progress nor matches.
  if (v.errored || (v.alerts > 0 && !v.progressSeen && v.matchObjects === 0)) return 'error';
  if (!v.done) return 'truncated';
  if (incompleteSkipped(v.skipped) || v.filters.some((f) => !f.exhaustive)) return 'limit_hit';
  return 'complete';
}
