import { z } from 'zod';
import { DURATION_HELP, DURATION_PATTERN, MAX_TIMER_MS, durationToMs, tooLong } from './duration.js';

function badDuration(input: unknown): string {
  return `${JSON.stringify(input)} is not a positive duration; use ${DURATION_HELP}`;
}

/** Suite duration: seconds or text in the file, milliseconds after parsing. */
export const DurationSchema = z
  .union([
    z.number().positive({ error: (issue) => badDuration(issue.input) }),
    z.string().regex(DURATION_PATTERN, { error: (issue) => badDuration(issue.input) }),
  ], { error: (issue) => badDuration(issue.input) })
  .transform((value, ctx) => {
    const ms = durationToMs(value);
    if (ms === undefined || ms > MAX_TIMER_MS) {
      ctx.addIssue({ code: 'custom', message: ms === undefined ? badDuration(value) : `${JSON.stringify(value)} is ${tooLong(ms)}`, input: value });
      return z.NEVER;
    }
    return ms;
  });
