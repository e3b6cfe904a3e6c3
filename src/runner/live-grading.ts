import type { ResolvedQuestion } from '../config/resolve-suite.js';
import { isHeldElsewhere } from '../errors/errors.js';
import type { TurnRecord } from '../model/item.js';
import type { Recorder } from './recorder.js';

/** Judge calls, cache hits and judge tokens of grading during the run. */
export interface LiveGradingTotals {
  items: number;
  judgeCalls: number;
  cacheHits: number;
  judgeTokens: number;
  /** Turns whose grading failed (judge down, not a verdict, ...). */
  problems: number;
}

/**
 * Grades a question's turns as its item ends (the suite's `judge.during: run`). The runner declares this
 * port and the caller gives it one (the CLI gives the grade module's RunGrading): grading sits above the runner.
 */
export interface LiveGrader {
  readonly totals: LiveGradingTotals;
  needs(question: ResolvedQuestion): boolean;
  /** Grades and records; `problems` has one line per turn whose grading failed, for the log. */
  grade(runId: number, key: string, target: string, question: ResolvedQuestion, turns: ReadonlyArray<TurnRecord & { turn: number }>, signal?: AbortSignal): Promise<{ problems: readonly string[] }>;
}

/** The gradings a run started, which it waits for before its verdict. */
export class LiveGrading {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly grader: LiveGrader,
    private readonly run: { runId: number; recorder: Recorder; abort: AbortSignal; log: (message: string) => void },
  ) {}

  get totals(): LiveGradingTotals {
    return this.grader.totals;
  }

  /** Grades a question that ended, when its suite asks: outside the question's slot, under the judge's own limit, so grading never holds up asking. */
  ended(key: string, target: string, question: ResolvedQuestion, turns: readonly TurnRecord[]): void {
    if (!this.grader.needs(question)) return;
    const grade = this.grade(key, target, question, turns).finally(() => this.running.delete(grade));
    this.running.add(grade);
  }

  /** Resolves once every grading started has ended. */
  async settled(): Promise<void> {
    await Promise.all(this.running);
  }

  private async grade(key: string, target: string, question: ResolvedQuestion, turns: readonly TurnRecord[]): Promise<void> {
    const { runId, recorder, abort, log } = this.run;
    try {
      // Once the item's end is committed: none for a run another process took over meanwhile (the judge not asked).
      await recorder.committed();
      const outcome = await this.grader.grade(runId, key, target, question, turns.map((t, turn) => ({ ...t, turn })), abort);
      for (const problem of outcome.problems) log(`${key}: grading ${problem}`);
    } catch (error) {
      // The run stops with it, saying why.
      if (isHeldElsewhere(error)) return;
      // The store failing: the run's answers are recorded already; grade it later with dsbench grade.
      log(`${key}: could not record its grade (${error instanceof Error ? error.message : String(error)}); grade the run later with dsbench grade ${runId}`);
    }
  }
}
