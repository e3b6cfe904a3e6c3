import type { z } from 'zod';
import type { ItemSummarySchema } from './events.js';

/** How an item ended, for the progress display, the budget and grading. */
export type ItemSummary = z.infer<typeof ItemSummarySchema>;
