// Transient faults never end an item: polls failing with 5xx, resets or timeouts at 5% and 20% are retried
// until the item's own timeout; an item whose poll fails for good keeps its conversation unfinished, the
// run is not completed, and --resume re-polls it without asking again.
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { createRng } from '../../src/emulator/random.js';
import { startFaultProxy, type FaultProxy, type ProxyAction } from '../helpers/fault-proxy.js';
import { storedItems } from '../../src/store/index.js';
import { asked, cleanup, emulator, FAST, runSuite, storedItem, storedRun, storedTurns, suite, target, tempDir } from './fixtures/harness.js';
import path from 'node:path';

const proxies: FaultProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await cleanup();
});

const SUITE = (api: 'legacy' | 'versioned', n: number) => `
name: transient
defaults: { api: ${api}, concurrency: 4, timeout: 10h, poll: { strategy: fixed, interval: 20ms } }
questions:
${Array.from({ length: n }, (_, i) => `  - { id: q${i}, question: "Where is helper${i} implemented?", followups: ["Who calls helper${i}?"] }\n`).join('')}`;

const isPoll = (operation: string) => operation === 'legacy.get' || operation === 'versioned.GetConversation';

const FAULTS: Record<string, ProxyAction> = {
  '500': { kind: 'status', status: 500 },
  '502': { kind: 'status', status: 502 },
  reset: { kind: 'reset' },
  // Longer than the request timeout below: the attempt times out.
  timeout: { kind: 'forward', delayMs: 800 },
};

describe.each(['legacy', 'versioned'] as const)('faults on polls (%s)', (api) => {
  // The item's timeout (10 h at time scale 0.0005: 18 s) leaves room for retries on a loaded machine.
  it.each([0.05, 0.2])('at a rate of %s of each kind, every item completes and nothing is asked twice', async (rate) => {
    const e = await emulator({ ...FAST, timeScale: 0.0005 });
    const random = createRng(api === 'legacy' ? 7 : 8);
    const kinds = Object.keys(FAULTS);
    const proxy = await startFaultProxy(e.url, (req) => {
      if (!isPoll(req.operation)) return { kind: 'forward' };
      const draw = random.next();
      const kind = kinds[Math.floor(draw / rate)];
      return kind !== undefined ? (FAULTS[kind] as ProxyAction) : { kind: 'forward' };
    });
    proxies.push(proxy);
    const n = 6;
    const run = await runSuite(await suite(SUITE(api, n)), [target({ name: 'main', emulator: proxy.url, timeScale: 0.0005 })], { requestTimeoutMs: 600 });
    try {
      expect(run.result.exitCode, JSON.stringify(run.reporter.logs)).toBe(ExitCode.ok);
      expect(storedItems(run.db, run.result.runId).map((i) => i.outcome)).toEqual(Array.from({ length: n }, () => 'completed'));
      expect(asked(e, api)).toBe(2 * n);
      expect(e.questionRecords()).toHaveLength(2 * n);
      expect((proxy.counts.status ?? 0) + (proxy.counts.reset ?? 0)).toBeGreaterThan(0);
    } finally {
      run.close();
    }
  });
});

describe('a poll that fails for good', () => {
  it('leaves the item unfinished with its conversation; the run is not completed; --resume re-polls it and asks nothing again', async () => {
    const api = 'versioned';
    const e = await emulator(FAST);
    let broken = true;
    // 501: not a transient status, so the item cannot end on its own; the question was asked.
    const proxy = await startFaultProxy(e.url, (req) => (broken && isPoll(req.operation) ? { kind: 'status', status: 501 } : { kind: 'forward' }));
    proxies.push(proxy);
    const dbPath = path.join(tempDir(), 'runs.db');
    const loaded = await suite(SUITE(api, 2));
    const first = await runSuite(loaded, [target({ name: 'main', emulator: proxy.url, timeScale: FAST.timeScale })], { dbPath });
    const runId = first.result.runId;
    try {
      // An item that never reached its end: the verdict's word for it (aborted), not a pass.
      expect(first.result.exitCode).toBe(ExitCode.aborted);
      expect(storedRun(first.db, runId).status).not.toBe('completed');
      const q0 = storedItem(first.db, runId, 'main/question/q0/0');
      expect(q0.itemStatus).toBe('running');
      expect(q0.conversationRef).not.toBeNull();
      expect(q0.message).toContain('HTTP 501');
      expect(storedTurns(first.db, runId, 'main/question/q0/0').map((t) => t.state)).toEqual(['processing']);
      expect(first.reporter.logs.join('\n')).toContain(`is kept unfinished: dsbench run --resume ${runId} re-polls it`);
    } finally {
      first.close();
    }
    expect(asked(e, api)).toBe(2);

    broken = false;
    const resumed = await runSuite(loaded, [target({ name: 'main', emulator: proxy.url, timeScale: FAST.timeScale })], { dbPath, resumeRunId: runId });
    try {
      expect(resumed.result.exitCode, JSON.stringify(resumed.reporter.logs)).toBe(ExitCode.ok);
      expect(storedItems(resumed.db, runId).map((i) => [i.itemStatus, i.outcome])).toEqual([['done', 'completed'], ['done', 'completed']]);
      expect(storedRun(resumed.db, runId).status).toBe('completed');
      // The two first questions once, and their follow-ups once.
      expect(asked(e, api)).toBe(4);
    } finally {
      resumed.close();
    }
  });
});
