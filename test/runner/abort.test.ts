// An abort (the grace period over) while a create is under way: the create is let finish, so its
// conversation is recorded and cancelled on the server instead of left running there unseen.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CapturingReporter, CORPUS_SEARCH, cleanup, emulator, op, runSuite, storedItem, storedTurns, suite, target } from './fixtures/harness.js';

afterEach(cleanup);

const SUITE = (api: string) => `
name: abort
defaults: { api: ${api}, poll: { strategy: fixed, interval: 50ms } }
questions:
  - id: q1
    question: Where is retryPolicy implemented?
`;

/** Aborts the run (both signals) as soon as the emulator has received a create. */
function abortOnCreate(e: RunningEmulator, api: 'legacy' | 'versioned') {
  const stop = new AbortController();
  const abort = new AbortController();
  const received = setInterval(() => {
    if ((e.counters()[op(api, 'create')] ?? 0) > 0) {
      clearInterval(received);
      stop.abort();
      abort.abort();
    }
  }, 5);
  return { stop: stop.signal, abort: abort.signal };
}

/** Aborts the run (both signals) the moment an unknown create outcome is reported, before the lookup starts. */
function abortOnUnknownOutcome() {
  const stop = new AbortController();
  const abort = new AbortController();
  const reporter = new (class extends CapturingReporter {
    override onLog(message: string): void {
      super.onLog(message);
      if (message.includes('the outcome is unknown')) {
        stop.abort();
        abort.abort();
      }
    }
  })();
  return { stop: stop.signal, abort: abort.signal, reporter };
}

/** Answers take about 30 s real: only the cancel can end a question within a test. */
const LONG = { timeScale: 1, medianMs: 30_000, sigma: 0 };

describe.each(['legacy', 'versioned'] as const)('abort during a create (%s)', (api) => {
  it('records the conversation the create made and cancels it on the server', async () => {
    const e = await emulator(LONG, CORPUS_SEARCH);
    e.injectFault({ operation: op(api, 'create'), kind: 'slow', delayMs: 300 });
    const run = await runSuite(await suite(SUITE(api)), [target({ name: 'main', emulator: e })], abortOnCreate(e, api));
    try {
      const row = storedItem(run.db, run.result.runId, 'main/question/q1/0');
      expect(row.conversationRef).not.toBeNull();
      expect(row.outcome).toBe('canceled');
      expect(storedTurns(run.db, run.result.runId, row.itemKey).map((t) => t.state)).toEqual(['canceled']);
      const records = e.questionRecords();
      expect(records).toHaveLength(1);
      expect(records[0]!.outcome).toBe('cancelled');
      expect(e.counters()[op(api, 'cancel')]).toBe(1);
    } finally {
      run.close();
    }
  });

  it('a create whose outcome is unknown is looked for despite the abort, then cancelled', async () => {
    const e = await emulator(LONG, CORPUS_SEARCH);
    // The server creates the conversation, then the connection breaks: the client cannot know it exists.
    e.injectFault({ operation: op(api, 'create'), kind: 'resetAfterAction' });
    const { reporter, ...signals } = abortOnUnknownOutcome();
    const run = await runSuite(await suite(SUITE(api)), [target({ name: 'main', emulator: e })], { ...signals, reporter });
    try {
      expect(storedItem(run.db, run.result.runId, 'main/question/q1/0').conversationRef).not.toBeNull();
      expect(e.questionRecords().map((r) => r.outcome)).toEqual(['cancelled']);
      expect(reporter.logs.some((l) => l.includes('sent before the interruption; following it instead of asking again'))).toBe(true);
    } finally {
      run.close();
    }
  });

  it('a create whose outcome is unknown and that made nothing: the log says none was found and where to look', async () => {
    const e = await emulator(LONG, CORPUS_SEARCH);
    // The connection breaks before the server acts.
    e.injectFault({ operation: op(api, 'create'), kind: 'reset' });
    const { reporter, ...signals } = abortOnUnknownOutcome();
    const run = await runSuite(await suite(SUITE(api)), [target({ name: 'main', emulator: e })], { ...signals, reporter });
    try {
      const row = storedItem(run.db, run.result.runId, 'main/question/q1/0');
      expect(row.conversationRef).toBeNull();
      expect(row.outcome).toBe('canceled');
      expect(e.questionRecords()).toEqual([]);
      expect(reporter.logs).toContain('main/question/q1/0: no conversation was found for it; if one was created it may still be running: see dsbench conversations list');
    } finally {
      run.close();
    }
  });
});
