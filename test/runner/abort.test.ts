// An abort (the grace period over) while a create is under way: the create is let finish, so its
// conversation is recorded and cancelled on the server instead of left running there unseen.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, emulator, item, op, runSuite, suite, target, turns } from './fixtures/harness.js';

afterEach(cleanup);

const SUITE = (api: string) => `
name: abort
defaults: { api: ${api}, poll: { strategy: fixed, interval: 50ms } }
questions:
  - id: q1
    question: Where is retryPolicy implemented?
`;

describe.each(['legacy', 'versioned'] as const)('abort during a create (%s)', (api) => {
  it('records the conversation the create made and cancels it on the server', async () => {
    // Answers take about 30 s real: only the cancel can end this question within the test.
    const e = await emulator({ timeScale: 1, medianMs: 30_000, sigma: 0 });
    e.injectFault({ operation: op(api, 'create'), kind: 'slow', delayMs: 300 });
    const stop = new AbortController();
    const abort = new AbortController();
    const received = setInterval(() => {
      if ((e.counters()[op(api, 'create')] ?? 0) > 0) {
        clearInterval(received);
        stop.abort();
        abort.abort();
      }
    }, 5);
    const run = await runSuite(await suite(SUITE(api)), [target({ name: 'main', emulator: e })], { stop: stop.signal, abort: abort.signal });
    try {
      const row = item(run.db, run.result.runId, 'main/question/q1/0');
      expect(row.conversation_ref).not.toBeNull();
      expect(row.outcome).toBe('canceled');
      expect(turns(run.db, run.result.runId, row.key).map((t) => t.state)).toEqual(['canceled']);
      const records = e.questionRecords();
      expect(records).toHaveLength(1);
      expect(records[0]!.outcome).toBe('cancelled');
      expect(e.counters()[op(api, 'cancel')]).toBe(1);
    } finally {
      run.close();
    }
  });
});
