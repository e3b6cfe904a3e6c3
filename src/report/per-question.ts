import type { ItemVerdictRow, TurnMetricRow } from '../store/queries.js';
import { FAILED_STATES } from './summary.js';
import { percentile } from './percentiles.js';

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
  asked: number;
  completed: number;
  errors: number;
  serverMsP50: number | null;
  credits: number | null;
}

interface Acc extends Omit<QuestionLine, 'serverMsP50'> {
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
      this.lines.set(key, (acc = { target, id, items: 0, passed: 0, failed: 0, asked: 0, completed: 0, errors: 0, credits: null, serverMs: [] }));
    }
    this.last = acc;
    return acc;
  }

  addTurn(t: TurnMetricRow): void {
    const acc = this.line(t.target, t.suiteItemId);
    if (!acc) return;
    acc.asked++;
    if (t.state === 'completed') acc.completed++;
    else if (FAILED_STATES.has(t.state)) acc.errors++;
    if (t.serverMs !== null) acc.serverMs.push(t.serverMs);
    if (t.credits !== null) acc.credits = (acc.credits ?? 0) + t.credits;
  }

  addItem(item: ItemVerdictRow): void {
    if (item.kind !== 'question') return;
    const acc = this.line(item.target, item.suiteItemId);
    if (!acc) return;
    acc.items++;
    if (item.expectPassed === 1) acc.passed++;
    else if (item.expectPassed === 0) acc.failed++;
  }

  /** Questions with failed checks first, then those with errors, then by target and id; null past MAX_QUESTIONS. */
  rows(): QuestionLine[] | null {
    if (!this.lines) return null;
    return [...this.lines.values()]
      .map(({ serverMs, ...rest }) => ({ ...rest, serverMsP50: percentile(serverMs, 50) }))
      .sort((a, b) => Number(b.failed > 0) - Number(a.failed > 0) || Number(b.errors > 0) - Number(a.errors > 0) || (a.target < b.target ? -1 : a.target > b.target ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
