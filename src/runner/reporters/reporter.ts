import type { ItemSummary } from '../question-runner.js';

export interface RunStart {
  runId: number;
  total: number;
  /** Items already finished by an earlier process (resume). */
  alreadyDone: number;
  targets: string[];
}

/** Hooks a progress display may implement; all optional. */
export interface Reporter {
  onRunStart?(start: RunStart): void;
  onItemStart?(key: string): void;
  onItemEnd?(key: string, summary: ItemSummary): void;
  /** Something a person watching should know (quota decisions, stops, retries that gave up). */
  onLog?(message: string): void;
  onRunEnd?(): void;
}

const FAILED = new Set(['error', 'client_error', 'timeout', 'http_error', 'truncated']);

/** Counts that every display shows: done of total, running, errors, credits, and an ETA from the pace so far. */
export class ProgressState {
  total = 0;
  done = 0;
  running = 0;
  errors = 0;
  credits = 0;
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
    this.credits += summary.credits;
    // An error the suite expected (its checks passed) is not one to flag while the run goes on.
    if (summary.failed > 0 || (FAILED.has(summary.outcome) && summary.passed === 0)) this.errors++;
  }

  /** Seconds left at the pace of this process, undefined before the first item ends. */
  etaSeconds(): number | undefined {
    if (this.doneHere === 0) return undefined;
    const perItem = (performance.now() - this.startedAt) / 1000 / this.doneHere;
    return Math.round(perItem * (this.total - this.done));
  }
}
