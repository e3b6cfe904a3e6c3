import { z } from 'zod';

export const RetryPolicySchema = z
  .object({
    /** Attempts in all, the first included. */
    maxAttempts: z.number().int().min(1).max(100).default(5),
    /** Backoff grows from this: attempt n waits a random time in [0, min(maxDelayMs, baseDelayMs * 2^(n-1))]. */
    baseDelayMs: z.number().min(0).default(500),
    /** Cap on one wait, whether from backoff or from Retry-After; a longer Retry-After is not waited for. */
    maxDelayMs: z.number().min(0).default(30_000),
  })
  .strict();

export type RetryPolicy = z.output<typeof RetryPolicySchema>;

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** Statuses that prove the server did not act on the request, so even a create may be retried. */
const NOT_ACTED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export function isNotActedStatus(status: number): boolean {
  return NOT_ACTED_STATUSES.has(status);
}

/** Error codes raised before a request could be sent: the server cannot have acted on it. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export function isNotSentCode(code: string): boolean {
  return NOT_SENT_CODES.has(code);
}

/**
 * Whether a reply status may be retried for a request that creates something or for one that does not.
 * A persistent idempotent request (a poll that must not end an item) also retries any other 5xx but
 * 501 and 505, which no retry changes.
 */
export function isRetryableStatus(status: number, creates: boolean, persistent = false): boolean {
  if (creates) return NOT_ACTED_STATUSES.has(status);
  return RETRYABLE_STATUSES.has(status) || (persistent && status >= 500 && status !== 501 && status !== 505);
}

/** Retry-After as delta-seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // Every HTTP date form starts with the day's name; Date.parse alone would read "-5" as a year.
  if (!/^[A-Za-z]{3}/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Full-jitter exponential backoff for the given 1-based attempt that just failed. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}
