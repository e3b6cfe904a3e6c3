import type { ItemOutcome, TurnRecord } from '../model/item.js';

/** How an item ended, for the progress display, the budget and grading. */
export interface ItemSummary {
  outcome: ItemOutcome;
  /** Null when the API reported no credits (the versioned API has no stats). */
  credits: number | null;
  passed: number;
  failed: number;
  /** A conversation's turns as recorded, in order, for grading. */
  turns?: readonly TurnRecord[] | undefined;
}
