import { RunningSum, selectPercentiles } from '../stats/percentiles.js';
import type { ItemTraits, PassItem, PassTurn, RunSink } from './history-pass.js';
import { type ItemCounts, TURN_STATES, countItem, itemCounts } from './summary.js';

// A run's figures per target as the history shows them: summary.csv's target rows (QuestionSummary) cut
// to the columns history.csv and the page read, counted the same way. The whole summary (tags, error codes,
// tokens, p99) cost the history about a second over 90 nights of 3,000 items.

type P2 = { p50: number | null; p90: number | null };

/** One target's row: the part of a QuestionSummaryRow (scope `target`) that the history reads. */
export interface TargetFigures extends ItemCounts {
  target: string;
  /** Turns asked. */
  questions: number;
  inProgress: number;
  wallMs: P2;
  serverMs: P2;
  credits: { sum: number | null; mean: number | null };
  expectPassRate: number | null;
}

const FINAL_STATES: ReadonlySet<string> = new Set(TURN_STATES);

class TargetTally {
  readonly items = itemCounts();
  questions = 0;
  inProgress = 0;
  readonly wallMs: number[] = [];
  readonly serverMs: number[] = [];
  readonly credits = new RunningSum();

  figures(target: string): TargetFigures {
    const [wallP50, wallP90] = selectPercentiles(Float64Array.from(this.wallMs), [50, 90]);
    const [serverP50, serverP90] = selectPercentiles(Float64Array.from(this.serverMs), [50, 90]);
    return {
      target,
      ...this.items,
      questions: this.questions,
      inProgress: this.inProgress,
      wallMs: { p50: wallP50 ?? null, p90: wallP90 ?? null },
      serverMs: { p50: serverP50 ?? null, p90: serverP90 ?? null },
      credits: { sum: this.credits.sum, mean: this.credits.mean },
      expectPassRate: this.items.expectItems === 0 ? null : this.items.expectPassed / this.items.expectItems,
    };
  }
}

/** Reads one run of the history's pass (`sink`), then gives each target's figures (`rows`). */
export class HistorySummary {
  private readonly tallies = new Map<string, TargetTally>();
  private last: { target: string; tally: TargetTally } | undefined;

  /** `targets`: the run's targets in their order; each has a row, even one with nothing recorded. */
  constructor(private readonly targets: readonly string[]) {
    for (const target of targets) this.tallies.set(target, new TargetTally());
  }

  sink(): RunSink {
    return { turn: (item, t) => this.addTurn(item, t), item: (item) => this.addItem(item) };
  }

  /** Targets in the run's order, then any other by name. */
  rows(): TargetFigures[] {
    const rank = (t: string) => {
      const i = this.targets.indexOf(t);
      return i === -1 ? this.targets.length : i;
    };
    return [...this.tallies.keys()]
      .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
      .map((target) => this.tallies.get(target)!.figures(target));
  }

  private addTurn(item: ItemTraits, t: PassTurn): void {
    const tally = this.tally(item.target);
    tally.questions++;
    if (!FINAL_STATES.has(t.state)) tally.inProgress++;
    if (t.wallMs !== null) tally.wallMs.push(t.wallMs);
    if (t.serverMs !== null) tally.serverMs.push(t.serverMs);
    tally.credits.add(t.credits);
  }

  private addItem(item: PassItem): void {
    if (item.traits.kind === 'question') countItem(this.tally(item.traits.target).items, item.traits);
  }

  private tally(target: string): TargetTally {
    // An item's turns and repeats come one after another: most rows are of the target before.
    if (this.last?.target === target) return this.last.tally;
    let tally = this.tallies.get(target);
    if (!tally) this.tallies.set(target, (tally = new TargetTally()));
    this.last = { target, tally };
    return tally;
  }
}
