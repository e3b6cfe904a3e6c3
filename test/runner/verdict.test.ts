// The verdict of a run is that of the whole run: a resume counts the items finished before the
// interruption, and every outcome goes through the one table of src/runner/verdict.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { runsTable } from '../../src/cli/runs.js';
import { formatRunSummary } from '../../src/cli/run-summary.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { itemExitCode, runExitCode } from '../../src/model/verdict.js';
import { listRuns } from '../../src/store/queries.js';
import { CapturingReporter, cleanup, emulator, runSuite, suite, target } from './fixtures/harness.js';

afterEach(cleanup);

/** q1's check fails; q2 and q3 have none, so a resume that forgot q1 would pass. */
const SUITE = `
name: verdict
defaults: { concurrency: 1, poll: { strategy: fixed, interval: 50ms, min: 20ms } }
questions:
  - id: q1
    question: Where is retryPolicy implemented?
    expect: { contains: [text no answer has] }
  - id: q2
    question: Where is backoffDelay implemented?
  - id: q3
    question: Where is parseSuite defined?
`;

/** Stops the run (as a first SIGINT would) once the first item has ended. */
class StopAfterFirst extends CapturingReporter {
  constructor(private readonly stop: AbortController) {
    super();
  }
  override onItemEnd(key: string, summary: { outcome: string }): void {
    super.onItemEnd(key, summary);
    this.stop.abort();
  }
}

describe('the verdict of a resumed run', () => {
  it('counts the checks and items finished before the interruption: summary, --json fields, exit code and runs agree', async () => {
    const e = await emulator({ timeScale: 0.0001 });
    const loaded = await suite(SUITE);
    const stop = new AbortController();
    const first = await runSuite(loaded, [target({ name: 'main', emulator: e })], { stop: stop.signal, reporter: new StopAfterFirst(stop) });
    first.close();
    expect(first.result.exitCode).toBe(ExitCode.aborted);
    expect(first.result.expectations).toEqual({ passed: 0, failed: 1 });
    expect(first.result.targets.main?.counts).toEqual({ completed: 1, pending: 2 });

    const again = await runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath: first.dbPath, resumeRunId: first.result.runId });
    try {
      expect(again.reporter.started).toEqual(['main/question/q2/0', 'main/question/q3/0']);
      expect(again.result.targets.main).toMatchObject({ counts: { completed: 3 }, passed: 0, failed: 1 });
      expect(again.result.expectations).toEqual({ passed: 0, failed: 1 });
      expect(again.result.exitCode).toBe(ExitCode.expectationsFailed);
      expect(formatRunSummary(again.result, again.dbPath, true)).toContain('Checks: 0 passed, 1 failed. Exit code 1.');
      const [listed] = listRuns(again.db);
      expect(listed).toMatchObject({ id: again.result.runId, status: 'completed', checks: { passed: 0, failed: 1 }, exitCode: ExitCode.expectationsFailed });
      expect(runsTable([listed!], 10_000)).toContain('checks failed');
    } finally {
      again.close();
    }
  });
});

describe('outcomes to exit codes', () => {
  it('a search that was cut, stalled, timed out or undecodable is not a pass; one that finished is judged by its checks', () => {
    expect(itemExitCode('search', 'complete')).toBe(ExitCode.ok);
    expect(itemExitCode('search', 'limit_hit')).toBe(ExitCode.ok);
    expect(itemExitCode('search', 'truncated')).toBe(ExitCode.unreachable);
    expect(itemExitCode('search', 'http_error')).toBe(ExitCode.unreachable);
    expect(itemExitCode('search', 'http_error', 503)).toBe(ExitCode.unreachable);
    expect(itemExitCode('search', 'http_error', 400)).toBe(ExitCode.usage);
    expect(itemExitCode('search', 'error')).toBe(ExitCode.usage);
  });

  it('a question with a final state is judged by its checks; a failed request is unreachable; unfinished items mean a stop', () => {
    for (const outcome of ['completed', 'error', 'canceled', 'timeout'] as const) expect(itemExitCode('question', outcome)).toBe(ExitCode.ok);
    expect(itemExitCode('question', 'client_error')).toBe(ExitCode.unreachable);
    for (const outcome of ['pending', 'running', 'skipped'] as const) expect(itemExitCode('question', outcome)).toBe(ExitCode.aborted);
  });

  it('the most severe class wins, and a signal wins over everything', () => {
    const items = [
      { kind: 'question' as const, outcome: 'completed' as const },
      { kind: 'search' as const, outcome: 'error' as const },
    ];
    expect(runExitCode({ signalled: false, stops: [], items, failedChecks: 3 })).toBe(ExitCode.usage);
    expect(runExitCode({ signalled: false, stops: [ExitCode.aborted], items, failedChecks: 3 })).toBe(ExitCode.aborted);
    expect(runExitCode({ signalled: false, stops: [ExitCode.aborted, ExitCode.unreachable], items, failedChecks: 0 })).toBe(ExitCode.unreachable);
    expect(runExitCode({ signalled: true, stops: [ExitCode.unreachable], items, failedChecks: 0 })).toBe(ExitCode.aborted);
    expect(runExitCode({ signalled: false, stops: [], items: [items[0]!], failedChecks: 0 })).toBe(ExitCode.ok);
    expect(runExitCode({ signalled: false, stops: [], items: [items[0]!], failedChecks: 1 })).toBe(ExitCode.expectationsFailed);
  });
});
