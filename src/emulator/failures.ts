import type { FailureKind } from './outcome.js';

/**
 * The only kinds public clients of the legacy API know. Quota and entitlement exhaustion have no kind
 * of their own there: they are usage limits, reported as RateLimitExceeded.
 */
export const LEGACY_ERROR_KINDS = ['TokenLimitExceeded', 'Cancelled', 'RateLimitExceeded', 'InternalError'] as const;
export type LegacyErrorKind = (typeof LEGACY_ERROR_KINDS)[number];

export const VERSIONED_ERROR_CODES = [
  'ERROR_INTERNAL',
  'ERROR_QUOTA_EXCEEDED',
  'ERROR_ENTITLEMENT_EXCEEDED',
  'ERROR_TOKEN_LIMIT_EXCEEDED',
] as const;
export type VersionedErrorCode = (typeof VERSIONED_ERROR_CODES)[number];

interface FailureInfo {
  legacyKind: LegacyErrorKind;
  title: string;
  message: string;
  /** The versioned state's message, where real servers are seen to word it otherwise than `message`. */
  versionedMessage?: string;
  /** Legacy `details`; gets the retry time when the failure has one. */
  details: (retryAt: string | undefined) => string;
  /**
   * Absent for cancellation, which the versioned API shows as the `canceled` state. A rate
   * limit maps to ERROR_QUOTA_EXCEEDED: like a quota it is a usage limit with a retry time,
   * while ERROR_INTERNAL would tell clients the instance is broken.
   */
  versionedCode?: VersionedErrorCode;
}

export const FAILURES: Record<FailureKind, FailureInfo> = {
  'token-limit': {
    legacyKind: 'TokenLimitExceeded',
    title: 'Token limit reached',
    message: 'The search exceeded the maximum token limit.',
    versionedMessage: 'The search could not be completed, please try again with more defined context.',
    details: () => 'Ask a narrower question or split it into several.',
    versionedCode: 'ERROR_TOKEN_LIMIT_EXCEEDED',
  },
  // Real servers end an answer that grew too long with ERROR_INTERNAL and keep what was written: a partial answer.
  'output-limit': {
    legacyKind: 'InternalError',
    title: 'Output limit reached',
    message: 'This response exceeded the maximum output length. Ask a follow-up question like "continue" to see more.',
    details: () => 'Ask a follow-up question like "continue" to see the rest.',
    versionedCode: 'ERROR_INTERNAL',
  },
  // The same limit reached before any answer text: the same error, no answer (the instance's response_truncated_no_answer).
  'output-limit-no-answer': {
    legacyKind: 'InternalError',
    title: 'Output limit reached',
    message: 'This response exceeded the maximum output length. Ask a follow-up question like "continue" to see more.',
    details: () => 'Ask a follow-up question like "continue" to see the rest.',
    versionedCode: 'ERROR_INTERNAL',
  },
  internal: {
    legacyKind: 'InternalError',
    title: 'Internal error',
    message: 'An internal error occurred while processing the question.',
    details: () => 'Asking again may succeed.',
    versionedCode: 'ERROR_INTERNAL',
  },
  'quota-exceeded': {
    legacyKind: 'RateLimitExceeded',
    title: 'Quota exceeded',
    message: 'You have used all Deep Search credits of the current period.',
    details: (at) => `The quota resets at ${at ?? 'the end of the period'}.`,
    versionedCode: 'ERROR_QUOTA_EXCEEDED',
  },
  'entitlement-exceeded': {
    legacyKind: 'RateLimitExceeded',
    title: 'Entitlement exceeded',
    message: 'Your entitlement does not allow more Deep Search questions.',
    details: (at) => `The entitlement renews at ${at ?? 'the end of the period'}.`,
    versionedCode: 'ERROR_ENTITLEMENT_EXCEEDED',
  },
  'rate-limited': {
    legacyKind: 'RateLimitExceeded',
    title: 'Rate limit exceeded',
    message: 'Too many Deep Search questions in a short time.',
    details: (at) => `Try again after ${at ?? 'a while'}.`,
    versionedCode: 'ERROR_QUOTA_EXCEEDED',
  },
  cancelled: {
    legacyKind: 'Cancelled',
    title: 'Cancelled',
    message: 'The question was cancelled.',
    details: () => 'Cancelled at the request of the user.',
  },
};
