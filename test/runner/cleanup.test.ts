// --cleanup deletes each conversation the run created, once its result is recorded.
import { afterEach, describe, expect, it } from 'vitest';
import { connectionFor } from '../../src/config/credentials.js';
import { createClient } from '../../src/deepsearch/index.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { storedItems } from '../../src/store/index.js';
import { ADMIN, FAST, cleanup, emulator, op, runSuite, storedTurns, suite, target } from './fixtures/harness.js';

afterEach(cleanup);

describe.each(['legacy', 'versioned'] as const)('--cleanup (%s)', (api) => {
  it('deletes every conversation after recording it, failed ones included', async () => {
    const e = await emulator();
    const loaded = await suite(`
name: cleanup
defaults: { api: ${api}, poll: { strategy: fixed, interval: 1s } }
questions:
  - id: q1
    question: Where is retryPolicy implemented?
    followups: [Who calls it?]
    repeats: 2
  - id: q2
    question: "[[internal-error]] Where is backoffDelay?"
`);
    const run = await runSuite(loaded, [target({ name: 'main', emulator: e })], { cleanup: true });
    const client = createClient(connectionFor(e.url, ADMIN, {}), api);
    try {
      const { db, result } = run;
      expect(result.exitCode).toBe(ExitCode.ok);
      expect(e.counters()[op(api, 'delete')]).toBe(3);
      // The results were recorded before the deletes.
      expect(storedTurns(db, result.runId).filter((t) => t.state === 'completed')).toHaveLength(4);
      const all = storedItems(db, result.runId);
      expect(all.every((i) => i.deletedAt !== null && i.conversationRef !== null)).toBe(true);
      expect(all.every((i) => i.deletedAt! >= i.endedAt!)).toBe(true);
      const left = [];
      for await (const c of client.list()) left.push(c);
      expect(left).toEqual([]);
    } finally {
      await client.close();
      run.close();
    }
  });
});

it('without --cleanup nothing is deleted', async () => {
  const e = await emulator(FAST);
  const run = await runSuite(await suite('name: keep\nquestions:\n  - id: q\n    question: Where is retryPolicy?\n'), [target({ name: 'main', emulator: e })]);
  try {
    expect(e.counters()[op('versioned', 'delete')]).toBe(0);
    expect(storedItems(run.db, run.result.runId)[0]!.deletedAt).toBeNull();
  } finally {
    run.close();
  }
});
