import type { ItemVerdictRow, TurnMetricRow } from '../store/queries.js';
import { countItem, itemCounts, type ItemCounts } from './summary.js';
import { percentile } from '../stats/percentiles.js';

// The per-question table of report.md (a CI job summary): one line per target and question id, over its
// repeats. Suites have tens to thousands of questions; past MAX_QUESTIONS the table is left out (the
// CSV files have every row) so a run of a million distinct questions does not hold them all.

export const MAX_QUESTIONS = 1_000;

export interface QuestionLine {
  target: string;
  id: string;
  items: number;
  /** Items whose checks all passed, failed, or that have none. */
  passed: number;
  failed: number;
  /** Turns asked. */
  asked: number;
  /** Items that ended well, and in an error (the suite did not expect; those it expected apart): countItem. */
  completed: number;
  errors: number;
  expectedErrors: number;
  serverMsP50: number | null;
  credits: number | null;
}

interface Acc {
  target: string;
  id: string;
  counts: ItemCounts;
  asked: number;
  credits: number | null;
  serverMs: number[];
}

export class PerQuestion {
  private lines: Map<string, Acc> | null = new Map();
  /** The last line counted: an item's turns come one after another. */
  private last: Acc | undefined;

  private line(target: string, id: string): Acc | undefined {
    if (!this.lines) return undefined;
    if (this.last !== undefined && this.last.target === target && this.last.id === id) return this.last;
    const key = `${target}\u0000${id}`;
    let acc = this.lines.get(key);
    if (!acc) {
      if (this.lines.size >= MAX_QUESTIONS) {
        this.lines = null;
        return undefined;
      }
      this.lines.set(key, (acc = { target, id, counts: itemCounts(), asked: 0, credits: null, serverMs: [] }));
    }
    this.last = acc;
    return acc;
  }

  addTurn(t: TurnMetricRow): void {
    const acc = this.line(t.target, t.suiteItemId);
    if (!acc) return;
    acc.asked++;
    if (t.serverMs !== null) acc.serverMs.push(t.serverMs);
    if (t.credits !== null) acc.credits = (acc.credits ?? 0) + t.credits;
  }

  addItem(item: ItemVerdictRow): void {
    if (item.kind !== 'question') return;
    const acc = this.line(item.target, item.suiteItemId);
    if (!acc) return;
    countItem(acc.counts, item);
  }

  /** Questions with failed checks first, then those with errors, then by target and id; null past MAX_QUESTIONS. */
  rows(): QuestionLine[] | null {
    if (!this.lines) return null;
    return [...this.lines.values()]
      .map(({ target, id, counts: c, asked, credits, serverMs }): QuestionLine => ({
        target,
        id,
        items: c.items,
        passed: c.expectPassed,
        failed: c.expectItems - c.expectPassed,
        asked,
        completed: c.itemsCompleted,
        errors: c.itemErrors,
        expectedErrors: c.itemExpectedErrors,
        credits,
        serverMsP50: percentile(serverMs, 50),
      }))
      .sort((a, b) => Number(b.failed > 0) - Number(a.failed > 0) || Number(b.errors > 0) - Number(a.errors > 0) || (a.target < b.target ? -1 : a.target > b.target ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
