// A send whose outcome is unknown and that the first lookup did not find gives its slot up while it waits
// out its landing window: another item runs meanwhile, the waiting one takes a slot again ahead of new
// items, and nothing is asked twice. Only a create still in flight at the fault can then exceed the limit.
import { afterEach, describe, expect, it } from 'vitest';
import { AbortedError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { Slots } from '../../src/runner/slots.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { START, asked, cleanup, emulator, maxOverlap, op, runSuite, suite, target } from './fixtures/harness.js';

const proxies: FaultProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await cleanup();
});

describe('Slots', () => {
  it('gives a freed slot to a returning item before a new one, and never holds more than its size', async () => {
    const slots = new Slots(1);
    const first = await slots.start();
    first.leave();
    const second = await slots.start();
    const order: string[] = [];
    const starting = slots.start().then((s) => {
      order.push('new');
      return s;
    });
    const returning = first.retake(new AbortController().signal).then(() => order.push('returning'));
    second.leave();
    await returning;
    expect(order).toEqual(['returning']);
    expect(slots.active).toBe(1);
    first.leave();
    (await starting).leave();
    expect(order).toEqual(['returning', 'new']);
    expect(slots.active).toBe(0);
  });

  it('a retake aborted while waiting leaves the line and holds nothing', async () => {
    const slots = new Slots(1);
    const waiting = await slots.start();
    waiting.leave();
    const other = await slots.start();
    const abort = new AbortController();
    const retake = waiting.retake(abort.signal);
    abort.abort();
    await expect(retake).rejects.toBeInstanceOf(AbortedError);
    other.leave();
    expect(slots.active).toBe(0);
    // Leaving a slot not held gives nothing away twice.
    waiting.leave();
    expect(slots.active).toBe(0);
    (await slots.start()).leave();
  });
});

/** Every question processes for exactly 100 ms of real time. */
const PACED = { timeScale: 0.001, sigma: 0, medianMs: 100_000, startTime: START };

const THREE = (api: 'legacy' | 'versioned') => `
name: slot-wait
defaults: { api: ${api}, concurrency: 1, poll: { strategy: fixed, interval: 10s } }
questions:
  - id: q1
    question: Where is retryPolicy implemented?
  - id: q2
    question: Where is the lease renewed?
  - id: q3
    question: Where are sends looked up?
`;

describe.each(['legacy', 'versioned'] as const)('a lost send waiting out its window (%s)', (api) => {
  it('gives up its slot: the other items run meanwhile, it is asked once more and only once', async () => {
    const e = await emulator(PACED);
    // Reset before the server acts: the first lookup finds nothing and the create cannot land late.
    e.injectFault({ operation: op(api, 'create'), kind: 'reset' });
    const run = await runSuite(await suite(THREE(api)), [target({ name: 'main', emulator: e, timeScale: 0.001 })], { requestTimeoutMs: 1500 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(logs).toMatch(/main\/question\/q1\/0: looked at 0 conversations [^\n]*: none is this question; turn 0 is not on the server yet, but its send could still be landing/);
      // Four creates reached the server: the one reset before it acted, and each question once.
      expect(e.faultCounters()[`${op(api, 'create')}.reset`]).toBe(1);
      expect(asked(e, api)).toBe(4);
      const created = e.questionRecords().sort((a, b) => a.createdAtVirtualMs - b.createdAtVirtualMs).map((q) => q.text);
      // q2 and q3 were asked while q1 waited; q1 took the slot back before nothing else was left.
      expect(created).toEqual(['Where is the lease renewed?', 'Where are sends looked up?', 'Where is retryPolicy implemented?']);
      expect(maxOverlap(e)).toBe(1);
    } finally {
      run.close();
    }
  });

  it('exceeds the limit only by a create that lands late, which it then follows instead of asking again', async () => {
    const e = await emulator(PACED);
    let creates = 0;
    // The connection breaks at once, the server gets the create 300 ms later: the first lookup misses it.
    const proxy = await startFaultProxy(e.url, (req) =>
      req.operation === op(api, 'create') && ++creates === 1 ? { kind: 'resetThenDeliver', delayMs: 300 } : { kind: 'forward' },
    );
    proxies.push(proxy);
    const run = await runSuite(await suite(THREE(api)), [target({ name: 'main', emulator: proxy.url, timeScale: 0.001 })], { requestTimeoutMs: 1500 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(logs).toContain('its send could still be landing');
      expect(logs).toContain('following it instead of asking again');
      expect(asked(e, api)).toBe(3);
      expect(e.questionRecords()).toHaveLength(3);
      const late = (text: string) => text === 'Where is retryPolicy implemented?';
      expect(maxOverlap(e, late)).toBe(1);
      expect(maxOverlap(e)).toBeLessThanOrEqual(2);
    } finally {
      run.close();
    }
  });
});

describe.each(['legacy', 'versioned'] as const)('a retry wait after an attempt the server did not act on (%s)', (api) => {
  // Retry-After is waited for only up to the retry cap.
  const retry = { baseDelayMs: 1, maxDelayMs: 5000 };

  it("gives up a create's slot: another item is asked meanwhile, the create is asked once", async () => {
    const e = await emulator(PACED);
    e.injectFault({ operation: op(api, 'create'), kind: '429', retryAfterSeconds: 1 });
    const run = await runSuite(await suite(THREE(api)), [target({ name: 'main', emulator: e, timeScale: 0.001 })], { retry });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(e.faultCounters()[`${op(api, 'create')}.429`]).toBe(1);
      const created = e.questionRecords().sort((a, b) => a.createdAtVirtualMs - b.createdAtVirtualMs).map((q) => q.text);
      expect(created).toHaveLength(3);
      expect(created[0]).toBe('Where is the lease renewed?');
      expect(maxOverlap(e)).toBe(1);
    } finally {
      run.close();
    }
  });

  it("keeps a poll's slot: its question is on the server", async () => {
    const e = await emulator(PACED);
    e.injectFault({ operation: op(api, 'get'), kind: '429', retryAfterSeconds: 1 });
    const run = await runSuite(await suite(THREE(api)), [target({ name: 'main', emulator: e, timeScale: 0.001 })], { retry });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(e.faultCounters()[`${op(api, 'get')}.429`]).toBe(1);
      const created = e.questionRecords().sort((a, b) => a.createdAtVirtualMs - b.createdAtVirtualMs).map((q) => q.text);
      expect(created).toEqual(['Where is retryPolicy implemented?', 'Where is the lease renewed?', 'Where are sends looked up?']);
      expect(maxOverlap(e)).toBe(1);
    } finally {
      run.close();
    }
  });
});
