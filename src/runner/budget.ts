import type { PlannedItem } from '../model/item.js';

/** The middle value (the mean of the two middle ones for an even count); undefined for none. */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** `run --max-credits N`, and what an item is expected to cost (the median of earlier runs), when known. */
export interface BudgetOptions {
  maxCredits: number;
  expected: (item: PlannedItem) => number | undefined;
}

/**
 * A run's spending cap: an item is launched only while the credits recorded, plus what the items in flight
 * are expected to cost, plus what it is expected to cost, stay within the cap. An item with no history is
 * expected to cost what the items of this run that ended cost (their median), else nothing.
 */
export class CreditBudget {
  private readonly inFlight = new Map<string, number>();
  private readonly ended: number[] = [];
  private stopMessage: string | undefined;

  constructor(
    private readonly options: BudgetOptions,
    /** Credits the run recorded before (a resume): items that ended, and attempts stopped on an interruption. */
    private spent: number,
  ) {}

  /** Reserves the item's expected credits, or refuses it (and every later one): the run's budget stops it. */
  admit(item: PlannedItem): boolean {
    if (this.stopMessage !== undefined) return false;
    const next = this.options.expected(item) ?? median(this.ended) ?? 0;
    const inFlight = [...this.inFlight.values()].reduce((a, b) => a + b, 0);
    if (this.spent + inFlight + next > this.options.maxCredits) {
      const figures = `${round(this.spent)} credits recorded + ${round(inFlight)} expected of the ${this.inFlight.size} item${this.inFlight.size === 1 ? '' : 's'} in flight + ${round(next)} expected of the next (${item.key})`;
      this.stopMessage = `--max-credits ${this.options.maxCredits}: stopped launching: ${figures} would pass ${this.options.maxCredits}`;
      return false;
    }
    this.inFlight.set(item.key, next);
    return true;
  }

  /**
   * The item ended (or never ran: `credits` null); what it cost replaces what it was expected to.
   * `recordedBefore`: what its turns had cost before a resume picked it up, already in the credits recorded.
   */
  settle(item: PlannedItem, credits: number | null, recordedBefore = 0): void {
    if (!this.inFlight.delete(item.key)) return;
    if (credits === null) return;
    this.spent += credits - recordedBefore;
    this.ended.push(credits);
  }

  /** Why the budget stopped the run, with its figures; undefined while it has not. */
  get stopped(): string | undefined {
    return this.stopMessage;
  }

  get recorded(): number {
    return this.spent;
  }
}

const round = (n: number) => Math.round(n * 100) / 100;
