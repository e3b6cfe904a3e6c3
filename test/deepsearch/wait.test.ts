// waitForQuestion with a fixed schedule, for both clients: completion, timeout, a question not yet
// listed, and abort.
import { afterEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../../src/model/conversation.js';
import { fixedSchedule, waitForQuestion } from '../../src/deepsearch/wait.js';
import { AbortedError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { APIS, FAST, PACED, SLOW, client, closeAll, emulator, failure, op } from '../helpers/emulator.js';

afterEach(closeAll);

describe.each(APIS)('%s client: waitForQuestion', (api) => {
  it('polls on the fixed schedule until the question completes', async () => {
    const e = await emulator(PACED);
    const c = client(e, api);
    const created = await c.create('Where is retryPolicy defined?');
    const seen: Conversation[] = [];
    const result = await waitForQuestion(c, created.ref, 0, { schedule: fixedSchedule(5), timeoutMs: 5_000, onPoll: (conv) => seen.push(conv) });
    expect(result.timedOut).toBe(false);
    expect(result.question?.state).toBe('completed');
    expect(result.conversation.state).toBe('completed');
    // 400 ms of processing, polled every 5 ms.
    expect(result.polls).toBeGreaterThanOrEqual(2);
    expect(seen).toHaveLength(result.polls);
    expect(seen[0]!.state).toBe('processing');
    expect(e.counters()[op(api, 'get')]).toBe(result.polls);
    expect(result.wallMs).toBeGreaterThanOrEqual(50);
  });

  it('returns timedOut with the last state seen when the question outlasts the timeout', async () => {
    const e = await emulator(SLOW);
    const c = client(e, api);
    const created = await c.create('Where is retryPolicy defined?');
    const result = await waitForQuestion(c, created.ref, 0, { schedule: fixedSchedule(10), timeoutMs: 40 });
    expect(result.timedOut).toBe(true);
    expect(result.question?.state).toBe('processing');
    expect(result.conversation.state).toBe('processing');
    expect(result.wallMs).toBeGreaterThanOrEqual(40);
    // A poll at the start, one every 10 ms (start to start), and a final one at the timeout; on a busy
    // machine the wait overruns, so the bound is taken from the time it actually took. Timers may fire up
    // to a millisecond early, so intervals are counted as 9 ms, and the final poll may come twice.
    expect(result.polls).toBeGreaterThanOrEqual(1);
    expect(result.polls).toBeLessThanOrEqual(Math.floor(result.wallMs / 9) + 3);
    expect(e.counters()[op(api, 'get')]).toBe(result.polls);
  });

  it('counts a question not listed yet as processing, and times out without it', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    const created = await c.create('Where is retryPolicy defined?');
    const result = await waitForQuestion(c, created.ref, 1, { schedule: fixedSchedule(5), timeoutMs: 20 });
    expect(result.timedOut).toBe(true);
    expect(result.question).toBeUndefined();
  });

  it('stops with an AbortedError (exit code 4) when its signal aborts', async () => {
    const e = await emulator(SLOW);
    const c = client(e, api);
    const created = await c.create('Where is retryPolicy defined?');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const error = await failure(waitForQuestion(c, created.ref, 0, { schedule: fixedSchedule(5), timeoutMs: 5_000, signal: controller.signal }));
    expect(error).toBeInstanceOf(AbortedError);
    expect(error.exitCode).toBe(ExitCode.aborted);
  });
});
