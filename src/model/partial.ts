// No imports: the store reads this when it opens a report, which must not load the schema library.

/** An answer that came with an error (or a cancel): what was written before it stopped. */
export function isPartialAnswer(state: string, answer: string | null | undefined): boolean {
  return answer !== undefined && answer !== null && answer !== '' && state !== 'completed' && state !== 'processing';
}
