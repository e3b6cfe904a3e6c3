// The lookup of a send whose outcome is unknown cannot miss: it reads the server's clock (10 minutes behind
// here), walks every page until conversations are older than the send (60 newer ones on the legacy API),
// and waits out the send window when the request may still be landing (a proxy delivering it late).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatRunSummary } from '../../src/cli/run-summary.js';
import { writeReport } from '../../src/report/report.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { openStore, storedItems, unownedConversations } from '../../src/store/index.js';
import { executeRun } from '../../src/runner/run.js';
import { startFaultProxy, type FaultProxy, type ProxyAction, type ProxiedRequest } from '../helpers/fault-proxy.js';
import { client, closeAll } from '../helpers/emulator.js';
import { CrashError, crashingRecorder } from './fixtures/crash.js';
import { asked, CapturingReporter, cleanup, runDefaults, emulator, op, runSuite, storedItem, storedTurns, suite, target, tempDir } from './fixtures/harness.js';

const proxies: FaultProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await closeAll();
  await cleanup();
});

/** A fault proxy in front of `url`, closed after the test. */
async function proxied(url: string, decide: (req: ProxiedRequest) => ProxyAction): Promise<FaultProxy> {
  const proxy = await startFaultProxy(url, decide);
  proxies.push(proxy);
  return proxy;
}

const ONE = (api: 'legacy' | 'versioned') => `
name: lookup
defaults: { api: ${api}, concurrency: 1, poll: { strategy: fixed, interval: 20ms } }
questions:
  - id: q1
    question: Where is retryPolicy implemented?
    followups: [Which callers use retryPolicy?]
`;

/** Real time on the server, 10 minutes behind the local clock; answers in 100 ms. */
const BEHIND = { timeScale: 1, sigma: 0, medianMs: 100, faults: { clockOffsetMs: -600_000 } };

describe.each(['legacy', 'versioned'] as const)('the lookup of a lost send (%s)', (api) => {
  it('finds a create and a follow-up that acted on a server whose clock is 10 minutes behind', async () => {
    const e = await emulator(BEHIND);
    e.injectFault({ operation: op(api, 'create'), kind: 'resetAfterAction' });
    e.injectFault({ operation: op(api, 'addQuestion'), kind: 'resetAfterAction' });
    const run = await runSuite(await suite(ONE(api)), [target({ name: 'main', emulator: e })], { requestTimeoutMs: 300 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(e.faultCounters()[`${op(api, 'create')}.resetAfterAction`]).toBe(1);
      expect(asked(e, api)).toBe(2);
      expect(e.questionRecords()).toHaveLength(2);
      expect(logs).toContain('following it instead of asking again');
      expect(logs).toContain('main/question/q1/0: follow-up 1 is in conversation');
    } finally {
      run.close();
    }
  });

  it('finds a create the proxy delivers after the connection broke, once its send window passed; asks nothing twice', async () => {
    const e = await emulator({ timeScale: 0.001 });
    let creates = 0;
    const proxy = await proxied(e.url, (req) =>
      req.operation === op(api, 'create') && ++creates === 1 ? { kind: 'resetThenDeliver', delayMs: 300 } : { kind: 'forward' },
    );
    const run = await runSuite(await suite(ONE(api)), [target({ name: 'main', emulator: proxy.url, timeScale: 0.001 })], { requestTimeoutMs: 800 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(logs).toContain('its send could still be landing: looking again in');
      expect(asked(e, api)).toBe(2);
      expect(e.questionRecords()).toHaveLength(2);
    } finally {
      run.close();
    }
  });

  it('finds a create that reached the server only after its request timed out: the window runs from when the send was given up', async () => {
    const e = await emulator({ timeScale: 0.001 });
    let creates = 0;
    // The proxy holds the first create past the client's 300 ms timeout and delivers it at 500 ms.
    const proxy = await proxied(e.url, (req) =>
      req.operation === op(api, 'create') && ++creates === 1 ? { kind: 'forward', delayMs: 500 } : { kind: 'forward' },
    );
    const run = await runSuite(await suite(ONE(api)), [target({ name: 'main', emulator: proxy.url, timeScale: 0.001 })], { requestTimeoutMs: 300 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(logs).toContain('no complete reply within 300 ms');
      expect(logs).toContain('following it instead of asking again');
      expect(asked(e, api)).toBe(2);
      expect(e.questionRecords()).toHaveLength(2);
    } finally {
      run.close();
    }
  });
});

describe.each(['legacy', 'versioned'] as const)('a create that lands after it was asked again (%s)', (api) => {
  it('is found at the end of the run, recorded as no item\'s and shown in the summary', async () => {
    const e = await emulator({ timeScale: 0.001 });
    let creates = 0;
    let reasked!: () => void;
    const secondCreate = new Promise<void>((resolve) => (reasked = resolve));
    // The first create is held past the client's timeout and its window, and reaches the server only once
    // the question was asked again.
    const proxy = await proxied(e.url, (req) => {
      if (req.operation !== op(api, 'create')) return { kind: 'forward' };
      if (++creates === 1) return { kind: 'holdThenDeliver', until: secondCreate };
      reasked();
      return { kind: 'forward', replyDelayMs: 200 };
    });
    const run = await runSuite(await suite(ONE(api)), [target({ name: 'main', emulator: proxy.url, timeScale: 0.001 })], { requestTimeoutMs: 300 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(logs).toContain('it did not act; asking it again');
      expect(e.questionRecords().filter((q) => q.text === 'Where is retryPolicy implemented?')).toHaveLength(2);
      expect(run.result.targets.main!.unownedConversations).toBe(1);
      expect(run.result.targets.main!.lostCreates).toEqual({ texts: 1, unchecked: 0, error: null });
      const owned = storedItem(run.db, run.result.runId, 'main/question/q1/0').conversationRef;
      const rows = unownedConversations(run.db, run.result.runId).map(({ target, conversationRef, text }) => ({ target, ref: conversationRef, text }));
      expect(rows).toEqual([{ target: 'main', ref: expect.any(String), text: 'Where is retryPolicy implemented?' }]);
      expect(rows[0]!.ref).not.toBe(owned);
      expect(logs).toMatch(/target main: 1 conversation asking this run's questions belongs to no item \(\S+\): a create given up reached the server after all/);
      expect(formatRunSummary(run.result, 'runs.db', false)).toContain("Conversations no item owns (a create given up reached the server after all; asked twice if its item asked again; docs/restarts.md):\n  main: 1 conversation with this run's questions that no item owns");
      // The morning report says so too, naming the conversation.
      const report = await writeReport({ db: run.dbPath, run: 'latest', out: path.join(tempDir(), 'report'), formats: new Set(['md', 'json']) });
      expect(report.data.unowned).toEqual([{ target: 'main', conversationRef: rows[0]!.ref, text: 'Where is retryPolicy implemented?', createdAt: expect.any(String) }]);
      expect(report.markdown).toContain("1 conversation asks this run's questions but belongs to no item: a create given up reached the server after all");
      const json = JSON.parse(readFileSync(path.join(report.out, 'report.json'), 'utf8')) as { unowned: unknown[] };
      expect(json.unowned).toEqual(report.data.unowned);
    } finally {
      run.close();
    }
  });
});

describe.each(['legacy', 'versioned'] as const)('the end-of-run check when the server refuses to list (%s)', (api) => {
  it('is logged, and the run keeps its verdict', async () => {
    const e = await emulator({ timeScale: 0.001 });
    let creates = 0;
    // The first create is reset before the server acts (a lost create); once it was asked again, every list
    // (the end-of-run check's) is refused.
    const proxy = await proxied(e.url, (req) => {
      if (req.operation === op(api, 'create')) return ++creates === 1 ? { kind: 'reset' } : { kind: 'forward' };
      if (req.operation === op(api, 'list') && creates >= 2) return { kind: 'status', status: 400 };
      return { kind: 'forward' };
    });
    const run = await runSuite(await suite(ONE(api)), [target({ name: 'main', emulator: proxy.url, timeScale: 0.001 })], { requestTimeoutMs: 300 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(logs).toContain('it did not act; asking it again');
      expect(logs).toMatch(/target main: could not look for conversations no item owns: .*HTTP 400/);
      expect(run.result.targets.main!.unownedConversations).toBe(0);
      expect(storedItem(run.db, run.result.runId, 'main/question/q1/0').outcome).toBe('completed');
      // The run does not claim what it could not check: the summary and the report name the unchecked text.
      const lost = run.result.targets.main!.lostCreates;
      expect(lost).toEqual({ texts: 1, unchecked: 1, error: expect.stringMatching(/HTTP 400/) });
      expect(formatRunSummary(run.result, 'runs.db', false)).toContain(
        `Creates given up and never looked for at the end (one that landed after all would go unseen; docs/restarts.md):\n  main: 1 of 1 question text (the check failed: ${lost.error})`,
      );
      const report = await writeReport({ db: run.dbPath, run: 'latest', out: path.join(tempDir(), 'report'), formats: new Set(['md', 'json']) });
      expect(report.markdown).toContain('Creates given up (their outcome unknown) that no end-of-run check looked for');
      expect(report.markdown).toContain('`main` 1 of 1 question text (the check failed: ');
      const json = JSON.parse(readFileSync(path.join(report.out, 'report.json'), 'utf8')) as { unchecked: unknown[] };
      expect(json.unchecked).toEqual([{ target: 'main', texts: 1, unchecked: 1, error: lost.error }]);
    } finally {
      run.close();
    }
  });
});

describe.each(['legacy', 'versioned'] as const)('a lost create whose item ends without asking again (%s)', (api) => {
  it('is still looked for at the end of the run: its late landing is recorded as no item\'s', async () => {
    // q2's answer takes 3 s, so the run outlasts the late landing below.
    const e = await emulator({ timeScale: 1, sigma: 0, medianMs: 3000 });
    let held = false;
    const proxy = await proxied(e.url, (req) => {
      if (req.operation !== op(api, 'create') || held || !req.body.includes('retryPolicy')) return { kind: 'forward' };
      // q1's create times out after 1 s; its window would end 1 s later, but its item's time (500 ms, and
      // a second of grace for requests) runs out first, so it is never asked again. The create reaches the
      // server 2 s in.
      held = true;
      return { kind: 'holdThenDeliver', until: new Promise((resolve) => setTimeout(resolve, 2000)) };
    });
    const loaded = await suite(`
name: unowned
defaults: { api: ${api}, concurrency: 2, poll: { strategy: fixed, interval: 50ms } }
questions:
  - id: q1
    question: Where is retryPolicy implemented?
    timeout: 500ms
  - id: q2
    question: Where is backoffDelay implemented?
`);
    const run = await runSuite(loaded, [target({ name: 'main', emulator: proxy.url })], { requestTimeoutMs: 1000 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(storedItem(run.db, run.result.runId, 'main/question/q2/0').outcome, logs).toBe('completed');
      expect(storedItem(run.db, run.result.runId, 'main/question/q1/0').conversationRef, logs).toBeNull();
      expect(logs).not.toContain('asking it again');
      expect(e.questionRecords().filter((q) => q.text === 'Where is retryPolicy implemented?')).toHaveLength(1);
      expect(run.result.targets.main!.unownedConversations, logs).toBe(1);
    } finally {
      run.close();
    }
  });
});

describe('the end-of-run check for questions asked twice (versioned)', () => {
  it('walks every re-asked text at once, and finds a late create of a text that contains another re-asked text', async () => {
    const api = 'versioned';
    const e = await emulator({ timeScale: 0.001 });
    const short = 'Where is retryPolicy implemented?';
    const long = 'Where is retryPolicy implemented? And who calls it?';
    let longCreates = 0;
    let shortCreates = 0;
    let reasked!: () => void;
    const secondLong = new Promise<void>((resolve) => (reasked = resolve));
    const listStarts: number[] = [];
    const proxy = await proxied(e.url, (req) => {
      if (req.operation === op(api, 'list')) {
        listStarts.push(performance.now());
        return { kind: 'forward', replyDelayMs: 300 };
      }
      if (req.operation !== op(api, 'create')) return { kind: 'forward' };
      // The short text's first create is reset; the long one's reaches the server only once it was asked again.
      if (req.body.includes('And who calls it?')) {
        if (++longCreates === 1) return { kind: 'holdThenDeliver', until: secondLong };
        reasked();
        return { kind: 'forward', replyDelayMs: 200 };
      }
      return ++shortCreates === 1 ? { kind: 'reset' } : { kind: 'forward' };
    });
    const loaded = await suite(`
name: twice
defaults: { api: ${api}, concurrency: 1, poll: { strategy: fixed, interval: 20ms } }
questions:
  - id: q1
    question: ${short}
  - id: q2
    question: "${long}"
`);
    const run = await runSuite(loaded, [target({ name: 'main', emulator: proxy.url, timeScale: 0.001 })], { requestTimeoutMs: 1000 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      const rows = unownedConversations(run.db, run.result.runId).map((u) => u.text);
      expect(rows, logs).toEqual([long]);
      // Lookups during the run hold the one slot, one at a time: only the end-of-run walks overlap, and
      // one after another they could not start less than a held reply (300 ms) apart.
      const gaps = listStarts.slice(1).map((t, i) => t - (listStarts[i] as number));
      expect(Math.min(...gaps), logs).toBeLessThan(150);
    } finally {
      run.close();
    }
  });
});

describe.each(['legacy', 'versioned'] as const)('on resume, a create an earlier process gave up and asked again (%s)', (api) => {
  it('is looked for at the end of the resumed run: its late landing is recorded as no item\'s', async () => {
    const e = await emulator({ timeScale: 0.001 });
    const text = 'Where is retryPolicy implemented?';
    let creates = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // q1's first create is held past its timeout and window (q1 is asked again), and lands only after the process died.
    const proxy = await proxied(e.url, (req) =>
      req.operation === op(api, 'create') && req.body.includes('retryPolicy') && ++creates === 1 ? { kind: 'holdThenDeliver', until: released } : { kind: 'forward' },
    );
    const loaded = await suite(`
name: resume-lost
defaults: { api: ${api}, concurrency: 1, poll: { strategy: fixed, interval: 20ms } }
questions:
  - id: q1
    question: ${text}
  - id: q2
    question: Where is backoffDelay implemented?
`);
    const dbPath = path.join(tempDir(), 'runs.db');
    const store = openStore(dbPath);
    const stop = new AbortController();
    // The process dies as q1 ends, answered by its second create.
    const recorder = crashingRecorder(store, { method: 'itemFinished', when: (_run: number, key: string) => key === 'main/question/q1/0', at: 'after' }, stop);
    const targets = [target({ name: 'main', emulator: proxy.url, timeScale: 0.001 })];
    await executeRun({ ...runDefaults(), suite: loaded, targets, recorder, observers: [new CapturingReporter()], stop: stop.signal, requestTimeoutMs: 300 }).catch((error: unknown) => {
      if (!(error instanceof CrashError)) throw error;
    });
    store.close();
    release();
    await expect.poll(() => e.questionRecords().filter((q) => q.text === text).length).toBe(2);
    // Until it is resumed, the run's report says its given-up create was never looked for.
    const before = await writeReport({ db: dbPath, run: '1', out: path.join(tempDir(), 'report'), formats: new Set(['md']) });
    expect(before.markdown).toContain('`main` 1 of 1 question text (the run ended before its check)');

    const run = await runSuite(loaded, targets, { dbPath, resumeRunId: 1, requestTimeoutMs: 300 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(storedItem(run.db, 1, 'main/question/q1/0').outcome, logs).toBe('completed');
      expect(storedItem(run.db, 1, 'main/question/q2/0').outcome, logs).toBe('completed');
      expect(logs).not.toContain('asking it again');
      expect(run.result.targets.main!.unownedConversations, logs).toBe(1);
      expect(run.result.targets.main!.lostCreates).toEqual({ texts: 1, unchecked: 0, error: null });
      const rows = unownedConversations(run.db, 1).map((u) => u.text);
      expect(rows).toEqual([text]);
    } finally {
      run.close();
    }
  });
});

describe('on resume, a create that acted before the process died', () => {
  it('is found behind 60 newer conversations on the legacy API', async () => {
    const e = await emulator({ timeScale: 0.001 });
    const dbPath = path.join(tempDir(), 'runs.db');
    const loaded = await suite(ONE('legacy'));
    const store = openStore(dbPath);
    const stop = new AbortController();
    const recorder = crashingRecorder(store, { method: 'conversationCreated', when: () => true, at: 'before' }, stop);
    await executeRun({
      suite: loaded,
      targets: [target({ name: 'main', emulator: e })],
      recorder,
      observers: [new CapturingReporter()],
      onQuota: 'stop',
      maxQuotaWaitMs: 1000,
      cleanup: false,
      stop: stop.signal,
      abort: new AbortController().signal,
      requestTimeoutMs: 300,
    }).catch((error: unknown) => {
      if (!(error instanceof CrashError)) throw error;
    });
    store.close();
    expect(e.questionRecords()).toHaveLength(1);
    const other = client(e, 'legacy');
    await Promise.all(Array.from({ length: 60 }, (_, i) => other.create(`Where is unrelated${i} implemented?`)));

    const run = await runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath, resumeRunId: 1, requestTimeoutMs: 300 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(logs).toContain('following it instead of asking again');
      expect(storedItem(run.db, 1, 'main/question/q1/0').conversationRef).toBe(String(e.questionRecords()[0]!.conversationId));
      // q1 once, its follow-up once, and the 60 others.
      expect(e.questionRecords()).toHaveLength(62);
    } finally {
      run.close();
    }
  });
});

describe.each(['legacy', 'versioned'] as const)('on resume, a dead process\'s create that never landed (%s)', (api) => {
  it('is not matched to an earlier run\'s conversation of the same question: the resume reads the server\'s clock off the creates the run recorded', async () => {
    // Server time 1,000 times real time: the earlier conversation is minutes older than the send on it.
    const e = await emulator({ timeScale: 0.001 });
    const text = 'Where is retryPolicy implemented?';
    const earlier = await client(e, api).create(text);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const loaded = await suite(`
name: resume-clock
defaults: { api: ${api}, concurrency: 1, poll: { strategy: fixed, interval: 20ms } }
questions:
  - id: q0
    question: Where is backoffDelay implemented?
  - id: q1
    question: ${text}
`);
    const dbPath = path.join(tempDir(), 'runs.db');
    const store = openStore(dbPath);
    const stop = new AbortController();
    // The process dies with q1's create recorded as being sent, its request never sent.
    const recorder = crashingRecorder(store, { method: 'recordTurn', when: (_run: number, key: string, _turn: number, record: { state: string }) => key === 'main/question/q1/0' && record.state === 'sending', at: 'after' }, stop);
    await executeRun({ ...runDefaults(), suite: loaded, targets: [target({ name: 'main', emulator: e, timeScale: 0.001 })], recorder, observers: [new CapturingReporter()], stop: stop.signal, requestTimeoutMs: 300 }).catch((error: unknown) => {
      if (!(error instanceof CrashError)) throw error;
    });
    store.close();
    expect(e.questionRecords().filter((q) => q.text === text)).toHaveLength(1);

    const run = await runSuite(loaded, [target({ name: 'main', emulator: e, timeScale: 0.001 })], { dbPath, resumeRunId: 1, requestTimeoutMs: 300 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(storedItem(run.db, 1, 'main/question/q1/0').conversationRef, logs).not.toBe(earlier.ref);
      expect(logs).not.toContain('through every page');
      expect(e.questionRecords().filter((q) => q.text === text)).toHaveLength(2);
      expect(run.result.targets.main!.unownedConversations, logs).toBe(0);
    } finally {
      run.close();
    }
  });
});

describe.each(['legacy', 'versioned'] as const)('the send time of a turn (%s)', (api) => {
  it('is when the attempt that may have acted started, so a resume waits out the window of that attempt', async () => {
    const e = await emulator({ ...BEHIND, timeScale: 0.01, faults: {} });
    // The first attempt provably did not act (429); the second starts a second later.
    e.injectFault({ operation: op(api, 'create'), kind: '429', retryAfterSeconds: 1 });
    const run = await runSuite(await suite(ONE(api)), [target({ name: 'main', emulator: e })], { retry: { baseDelayMs: 1, maxDelayMs: 5_000 } });
    try {
      const started = Date.parse(storedItem(run.db, run.result.runId, 'main/question/q1/0').startedAt!);
      const [first] = storedTurns(run.db, run.result.runId, 'main/question/q1/0');
      expect(first).toMatchObject({ state: 'completed' });
      expect(Date.parse(first!.sentAt as string) - started).toBeGreaterThanOrEqual(1_000);
      expect(asked(e, api)).toBe(3); // the refused create, the create, the follow-up
    } finally {
      run.close();
    }
  });
});

describe.each(['legacy', 'versioned'] as const)('a lookup among repeats of one question (%s)', (api) => {
  it("never takes the conversation of another repeat whose create's reply is still on its way", async () => {
    const e = await emulator({ timeScale: 0.001 });
    let creates = 0;
    // Whichever create comes first acts, but its reply is held 800 ms; the second is reset before the
    // server sees it, and its lookup finds the first one's conversation, not yet claimed.
    const proxy = await proxied(e.url, (req) => {
      if (req.operation !== op(api, 'create')) return { kind: 'forward' };
      return ++creates === 1 ? { kind: 'forward', replyDelayMs: 800 } : creates === 2 ? { kind: 'reset' } : { kind: 'forward' };
    });
    const loaded = await suite(`
name: repeats
defaults: { api: ${api}, concurrency: 2, repeats: 2, poll: { strategy: fixed, interval: 20ms } }
questions:
  - id: q1
    question: Where is retryPolicy implemented?
`);
    const run = await runSuite(loaded, [target({ name: 'main', emulator: proxy.url, timeScale: 0.001 })], { requestTimeoutMs: 1500 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(proxy.counts.reset).toBe(1);
      const refs = storedItems(run.db, run.result.runId).map((i) => i.conversationRef);
      expect(new Set(refs).size, logs).toBe(2);
      expect(e.questionRecords()).toHaveLength(2);
    } finally {
      run.close();
    }
  });
});

describe.each(['legacy', 'versioned'] as const)('the first lookup of a lost create (%s)', (api) => {
  it('reads one page while the send could still be landing; the lookup after the window reads every page', async () => {
    // Server time 4 times real time: the 59 conversations before the loss are within the lookup's 60 s margin.
    const e = await emulator({ timeScale: 0.25, sigma: 0, medianMs: 20 });
    let creates = 0;
    let lists = 0;
    const proxy = await proxied(e.url, (req) => {
      if (req.operation === op(api, 'list') && creates === 60) lists++;
      if (req.operation !== op(api, 'create')) return { kind: 'forward' };
      return ++creates === 60 ? { kind: 'reset' } : { kind: 'forward' };
    });
    const loaded = await suite(`
name: pages
defaults: { api: ${api}, concurrency: 5, repeats: 60, poll: { strategy: fixed, interval: 10ms } }
questions:
  - id: q1
    question: Where is retryPolicy implemented?
`);
    const run = await runSuite(loaded, [target({ name: 'main', emulator: proxy.url })], { requestTimeoutMs: 1000 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(proxy.counts.reset).toBe(1);
      expect(logs).toContain('among the newest 10: none is this question');
      // Between the reset and the create sent again (the end-of-run check comes after): one page, then 59
      // conversations in a page of 10 and one of 50 after the window.
      expect(lists, logs).toBe(1 + 2);
      expect(e.questionRecords()).toHaveLength(60);
    } finally {
      run.close();
    }
  });
});
