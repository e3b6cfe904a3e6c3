// No imports: the store and the pages' viewer read these names too.

/**
 * The output-limit outcomes as the instance's dashboards name them (`response_truncated`,
 * `response_truncated_no_answer`): the budget ran out after some answer text, or before any.
 */
export const TRUNCATION_OUTCOMES = ['truncated', 'truncated-no-answer'] as const;
export type Truncation = (typeof TRUNCATION_OUTCOMES)[number];

/** The error codes a question turn stores for them (model/conversation.ts ErrorCodeSchema). */
export const TRUNCATION_CODES: Readonly<Record<Truncation, string>> = { truncated: 'TRUNCATED', 'truncated-no-answer': 'TRUNCATED_NO_ANSWER' };

/** Which output-limit outcome a stored error code is, if any. */
export function truncationOf(errorCode: string | null | undefined): Truncation | undefined {
  if (errorCode === 'TRUNCATED') return 'truncated';
  if (errorCode === 'TRUNCATED_NO_ANSWER') return 'truncated-no-answer';
  return undefined;
}
