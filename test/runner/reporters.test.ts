// Progress lines and the end-of-run summary table.
import { afterEach, describe, expect, it } from 'vitest';
import { formatRunSummary } from '../../src/cli/run-summary.js';
import { LinesReporter } from '../../src/runner/reporters/lines.js';
import { defaultReporter } from '../../src/runner/reporters/index.js';
import type { RunResult } from '../../src/runner/run.js';
import { FAST, cleanup, emulator, runSuite, suite, target, type CapturingReporter } from './fixtures/harness.js';

afterEach(cleanup);

describe('lines reporter', () => {
  it('counts skipped items as done, so the last line reaches the total', async () => {
    const e = await emulator({ ...FAST, quota: { limit: 1 } });
    const lines: string[] = [];
    const loaded = await suite(`
name: lines
defaults: { api: legacy, concurrency: 1, poll: { strategy: fixed, interval: 1s } }
questions:
  - { id: q1, question: Where is retryPolicy implemented? }
  - { id: q2, question: Where is backoffDelay implemented? }
  - { id: q3, question: Where is parseSuite defined? }
`);
    const reporter = new LinesReporter((line) => lines.push(line)) as unknown as CapturingReporter;
    const run = await runSuite(loaded, [target({ name: 'main', emulator: e })], { reporter });
    run.close();
    expect(lines[0]).toBe(`dsbench: run ${run.result.runId}: 3 items on main`);
    // A used-up quota is RateLimitExceeded on the legacy API.
    expect(lines).toContain('dsbench: RATE_LIMITED on target main: stopped launching (--on-quota stop)');
    expect(lines.at(-1)).toMatch(/^dsbench: 3\/3 done, 0 running, 1 errors, \d+ credits, ETA 0 s$/);
  });

  it('counts as errors the failures the suite did not expect, not the ones it did', async () => {
    const e = await emulator(FAST);
    const lines: string[] = [];
    const loaded = await suite(`
name: expected-errors
defaults: { api: legacy, concurrency: 1, poll: { strategy: fixed, interval: 1s } }
questions:
  - { id: expected, question: "[[token-limit]] Everything", expect: { state: error, errorCode: TOKEN_LIMIT_EXCEEDED } }
  - { id: unexpected, question: "[[internal-error]] Anything" }
  - { id: fine, question: Where is retryPolicy implemented? }
`);
    const reporter = new LinesReporter((line) => lines.push(line)) as unknown as CapturingReporter;
    const run = await runSuite(loaded, [target({ name: 'main', emulator: e })], { reporter });
    run.close();
    expect(lines.at(-1)).toMatch(/^dsbench: 3\/3 done, 0 running, 1 errors, /);
  });

  it('the default display: bar on a terminal, lines otherwise, quiet on request', () => {
    expect(defaultReporter(false, true)).toBe('bar');
    expect(defaultReporter(false, false)).toBe('lines');
    expect(defaultReporter(true, true)).toBe('quiet');
  });
});

describe('summary table', () => {
  const result: RunResult = {
    runId: 7,
    status: 'aborted',
    exitCode: 4,
    wallMs: 12_345,
    expectations: { passed: 5, failed: 1 },
    targets: {
      staging: { counts: { completed: 3, skipped: 2 }, credits: 12, passed: 5, failed: 1, stopped: 'QUOTA_EXCEEDED on target staging: stopped launching (--on-quota stop)' },
      prod: { counts: { completed: 5, complete: 1 }, credits: 20, passed: 0, failed: 0 },
    },
  };

  it('one row per target with the outcomes that occurred, credits, expectations, stops and the exit code', () => {
    expect(formatRunSummary(result, 'results/dsbench.db', false)).toBe(
      [
        '',
        'Run 7 aborted in 12.3 s; recorded in results/dsbench.db',
        '',
        'target   completed  complete  skipped  credits  expect ok  expect failed',
        'staging          3         0        2       12          5              1',
        'prod             5         1        0       20          0              0',
        '',
        'Stopped targets:',
        '  staging: QUOTA_EXCEEDED on target staging: stopped launching (--on-quota stop)',
        '',
        'Expectations: 5 passed, 1 failed. Exit code 4.',
        '',
      ].join('\n'),
    );
    expect(formatRunSummary(result, 'x.db', true)).toContain('Run 7 aborted in 12.3 s (emulated instance); recorded in x.db');
  });
});
