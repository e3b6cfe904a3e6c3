import type { ItemSummary } from '../item-summary.js';
import { failureClass } from '../../model/verdict.js';
import type { RunEventOf, RunObserver } from '../events.js';

export type RunStart = Omit<RunEventOf<'run-started'>, 'type' | 'at'>;

/** Where a reporter writes: the command's stderr (a terminal when `isTTY`, `columns` wide). */
export interface ProgressOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean | undefined;
  readonly columns?: number | undefined;
}

/**
 * A progress display: an observer of the run's events, which also shows messages from outside the run (the
 * command's signal notices) the way it shows the run's log events, so the two never mix.
 */
export interface Reporter extends RunObserver {
  log(message: string): void;
}

/** Counts that every display shows: done of total, running, errors, checks, credits, and an ETA from the pace so far. */
export class ProgressState {
  total = 0;
  done = 0;
  running = 0;
  /** Items that ended badly when the suite did not expect it; the ones it expected are counted apart (failureClass). */
  errors = 0;
  expectedErrors = 0;
  checksFailed = 0;
  /** Null until an item reports credits: the versioned API reports none, and that is not zero. */
  credits: number | null = null;
  private startedAt = performance.now();
  private doneHere = 0;

  start(start: RunStart): void {
    this.total = start.total;
    this.done = start.alreadyDone;
    this.startedAt = performance.now();
  }

  itemStarted(): void {
    this.running++;
  }

  itemEnded(summary: ItemSummary): void {
    this.running--;
    this.done++;
    this.doneHere++;
    if (summary.credits !== null) this.credits = (this.credits ?? 0) + summary.credits;
    this.checksFailed += summary.failed;
    const failure = failureClass(summary.outcome, summary);
    if (failure === 'error') this.errors++;
    else if (failure === 'expected') this.expectedErrors++;
  }

  /** Seconds left at the pace of this process, undefined before the first item ends. */
  etaSeconds(): number | undefined {
    if (this.doneHere === 0) return undefined;
    const perItem = (performance.now() - this.startedAt) / 1000 / this.doneHere;
    return Math.round(perItem * (this.total - this.done));
  }

  /** `1 errors (+1 expected), 0 checks failed, 12 credits`: the words the run summary uses too. */
  counts(): string {
    const credits = this.credits !== null ? `${this.credits} credits` : this.doneHere > 0 ? 'credits not measured' : '0 credits';
    return `${this.errors} errors${this.expectedErrors > 0 ? ` (+${this.expectedErrors} expected)` : ''}, ${this.checksFailed} checks failed, ${credits}`;
  }
}

/** `ETA 1m05s`, or `ETA --` until the first item has ended and a pace is known. */
export function etaText(seconds: number | undefined): string {
  if (seconds === undefined) return 'ETA --';
  if (seconds < 60) return `ETA ${seconds} s`;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `ETA ${h}h${String(m).padStart(2, '0')}m` : `ETA ${m}m${s}s`;
}
