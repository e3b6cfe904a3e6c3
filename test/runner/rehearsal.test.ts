// Rehearsals on a time-scaled emulator are reproducible: the same suite and seed give the same answers,
// states, stats and server times (to the second on the versioned API, whose timestamps have whole seconds)
// whatever the concurrency, the poll timing and slow replies; and their
// timeouts are judged on the server's clock, so slow replies cannot make an answer time out while one
// that really outlasts its timeout (in the server's time) still does.
import { afterAll, describe, expect, it } from 'vitest';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import type { RunTarget } from '../../src/runner/run.js';
import type { StoredTurn } from '../../src/store/index.js';
import { CORPUS_SEARCH, START, cleanup, emulator, runSuite, storedItem, storedTurns, suite, target } from './fixtures/harness.js';

// Each test has emulators of its own; the timeout tests run at the same time, so all are stopped at the end.
afterAll(cleanup);

function rehearsal(e: RunningEmulator): RunTarget {
  return { ...target({ name: 'emulator', emulator: e }), emulated: true };
}

const questions = (api: string, poll: string) => `
name: rehearsal
defaults: { api: ${api}, poll: ${poll} }
questions:
  - id: retry
    question: Where is RetryHandler implemented in undici, and what does it retry?
    followups: [Which status codes does it retry by default?]
  - id: keepalive
    question: How does undici's Agent keep connections alive per origin?
  - id: zod
    question: How does zod convert a schema to JSON Schema with toJSONSchema?
    followups: [Which zod types cannot be represented in JSON Schema?]
  - id: plimit
    question: How does p-limit queue tasks beyond its concurrency?
`;

/** What must not change from one rehearsal to the next: per item, its outcome and each turn's answer, state, stats and server time. */
function recorded(db: Parameters<typeof storedTurns>[0], runId: number): Record<string, unknown> {
  const byItem: Record<string, Array<Partial<StoredTurn>>> = {};
  for (const t of storedTurns(db, runId)) {
    const { itemKey, turn, state, answer, title, errorCode, serverMs, timeMillis, toolCalls, totalTokens, completionTokens, credits } = t;
    (byItem[itemKey] ??= []).push({ turn, state, answer, title, errorCode, serverMs, timeMillis, toolCalls, totalTokens, completionTokens, credits });
  }
  return Object.fromEntries(Object.entries(byItem).map(([key, t]) => [key, { outcome: storedItem(db, runId, key).outcome, turns: t }]));
}

// The default corpus (dsbench's node_modules), so the agent's searches do real work; some answers fail
// mid-run. Links name a fixed host, as the embedded emulator's do, not the port of the moment.
const REHEARSAL: EmulatorOptions = { timeScale: 0.002, startTime: START, publicUrl: 'http://emulator.invalid', agent: { tokenLimitRate: 0.2 } };

describe.each(['legacy', 'versioned'] as const)('a rehearsal (%s)', (api) => {
  it('gives the same answers, states, stats and server times at any concurrency, poll timing and reply speed', async () => {
    const calm = await runSuite(await suite(questions(api, '{ strategy: fixed, interval: 20s, min: 1s }')), [rehearsal(await emulator(REHEARSAL, CORPUS_SEARCH))], {
      concurrency: 1,
      repeats: 2,
    });
    // Eight at once, polled ten times as often, a third of the replies held back in real time.
    const busy = await runSuite(
      await suite(questions(api, '{ strategy: fixed, interval: 2s, min: 1s }')),
      [rehearsal(await emulator({ ...REHEARSAL, faults: { rateSlow: 0.3, slowMs: 40 } }, CORPUS_SEARCH))],
      { concurrency: 8, repeats: 2 },
    );
    try {
      const first = recorded(calm.db, calm.result.runId);
      const second = recorded(busy.db, busy.result.runId);
      expect(Object.keys(first)).toHaveLength(8);
      // Something to compare: answers, more than one state, repeats that differ from each other.
      const all = Object.values(first).flatMap((i) => (i as { turns: Array<Partial<StoredTurn>> }).turns);
      expect(all.some((t) => typeof t.answer === 'string' && t.answer.length > 0)).toBe(true);
      expect(new Set(all.map((t) => t.state)).size).toBeGreaterThan(1);
      expect(new Set(all.map((t) => t.serverMs)).size).toBeGreaterThan(4);
      if (api === 'legacy') expect(second).toEqual(first);
      else {
        // Versioned server times come from whole-second timestamps (as real servers send them): a question
        // created at another moment of the second may measure a second more or less.
        const serverMs = (r: Record<string, unknown>) => Object.values(r).flatMap((i) => (i as { turns: Array<Partial<StoredTurn>> }).turns.map((t) => Number(t.serverMs)));
        const [a, b] = [serverMs(first), serverMs(second)];
        b.forEach((ms, i) => expect(Math.abs(ms - a[i]!)).toBeLessThanOrEqual(1000));
        const withoutServerMs = (r: Record<string, unknown>) => JSON.parse(JSON.stringify(r, (key, value) => (key === 'serverMs' ? undefined : value)));
        expect(withoutServerMs(second)).toEqual(withoutServerMs(first));
      }
    } finally {
      calm.close();
      busy.close();
    }
    // Sixteen conversations over a real corpus: a few seconds, many more on a busy machine.
  }, 180_000);
});

/** Answers take `medianMs` of emulated time at 1/1000 of real time; every request is held back `slowMs` real ms before it is handled. */
const slowReplies = (medianMs: number, slowMs = 300): EmulatorOptions => ({
  timeScale: 0.001,
  sigma: 0,
  medianMs,
  agent: { maxMs: 3_600_000 },
  startTime: START,
  faults: { rateSlow: 1, slowMs },
});

const timed = (api: string) => `
name: server-time
defaults: { api: ${api}, poll: { strategy: fixed, interval: 5s, min: 1s } }
questions:
  - id: q
    question: Where is retryPolicy implemented?
    followups: [Which callers use it?]
    timeout: 60s
`;

// These wait on emulated answers and held replies, not on the CPU, and judge time on the server's clock (or,
// for the hung server, against a bound far above the wait): they run at the same time.
describe.concurrent.each(['legacy', 'versioned'] as const)('timeouts on a time-scaled emulator (%s)', (api) => {
  it('are judged on the server clock: slow replies do not make two 800 s turns outlast 30 minutes', async ({ expect }) => {
    // Each turn is 800 emulated seconds (800 real ms); each request is held back 200 real ms, i.e. 200
    // emulated seconds: on the local clock, at this pace, the second turn would still run past 30 minutes.
    const e = await emulator(slowReplies(800_000, 200));
    const run = await runSuite(await suite(timed(api).replace('timeout: 60s', 'timeout: 30m')), [rehearsal(e)]);
    try {
      expect(storedItem(run.db, run.result.runId, 'emulator/question/q/0').outcome).toBe('completed');
      expect(storedTurns(run.db, run.result.runId).map((t) => [t.state, t.serverMs])).toEqual([
        ['completed', 800_000],
        ['completed', 800_000],
      ]);
      expect(e.questionRecords().map((q) => q.outcome)).toEqual(['completed', 'completed']);
    } finally {
      run.close();
    }
  });

  it('still time out an answer that outlasts the timeout on the server clock, and cancel it there', async ({ expect }) => {
    // A 10-minute answer; requests held back 20 emulated seconds, so polls see it running past the timeout.
    const e = await emulator(slowReplies(600_000, 20));
    const run = await runSuite(await suite(timed(api)), [rehearsal(e)]);
    try {
      const [turn, ...rest] = storedTurns(run.db, run.result.runId);
      expect(rest).toEqual([]);
      expect(turn).toMatchObject({ state: 'timeout', clientError: 'no answer within 60 s; cancelled on the server' });
      const [question] = e.questionRecords();
      expect(question?.outcome).toBe('cancelled');
      // Cancelled once it had run 60 s on the server's clock, not before.
      expect(question!.endedAtVirtualMs! - question!.createdAtVirtualMs).toBeGreaterThanOrEqual(60_000);
    } finally {
      run.close();
    }
  });

  it('count the turns together: two 35 s turns outlast a 60 s timeout, however the second one is seen', async ({ expect }) => {
    const e = await emulator(slowReplies(35_000));
    const run = await runSuite(await suite(timed(api)), [rehearsal(e)]);
    try {
      expect(storedTurns(run.db, run.result.runId).map((t) => t.state)).toEqual(['completed', 'timeout']);
      expect(storedItem(run.db, run.result.runId, 'emulator/question/q/0').outcome).toBe('timeout');
    } finally {
      run.close();
    }
  });

  it('end an item whose server stops answering on the wall-clock bound (the unscaled timeout)', async ({ expect }) => {
    const e = await emulator({ ...slowReplies(20_000), faults: {} });
    const loaded = await suite(timed(api).replace('timeout: 60s', 'timeout: 2s'));
    e.injectFault({ operation: api === 'legacy' ? 'legacy.get' : 'versioned.GetConversation', kind: 'slow', delayMs: 120_000 });
    const started = performance.now();
    const run = await runSuite(loaded, [rehearsal(e)]);
    try {
      expect(storedTurns(run.db, run.result.runId)[0]).toMatchObject({ state: 'timeout' });
      // Two real seconds and the requests' grace, far from the two minutes the hung poll would take.
      expect(performance.now() - started).toBeLessThan(60_000);
    } finally {
      run.close();
    }
  });
});
