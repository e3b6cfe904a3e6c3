// A broken or hostile server (a fault proxy in front of the emulator answering for it): conversations in the
// account's list that are not JSON or always answer 500, a create whose connection is reset after it acted,
// one conversation for every create. The run must end on time, never record one item's answer as
// another's, and never let an unrelated conversation decide an item.
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { startFaultProxy, type FaultProxy, type ProxyAction, type ProxiedRequest } from '../helpers/fault-proxy.js';
import { closeAll, legacyClient, raw } from '../helpers/emulator.js';
import { cleanup, emulator, runSuite, storedItem, suite, target } from './fixtures/harness.js';

const proxies: FaultProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await closeAll();
  await cleanup();
});

async function proxied(url: string, decide: (req: ProxiedRequest) => ProxyAction): Promise<FaultProxy> {
  const proxy = await startFaultProxy(url, decide);
  proxies.push(proxy);
  return proxy;
}

const QUESTION = 'Where is retryPolicy implemented?';
const ONE = `
name: hostile
defaults: { api: legacy, concurrency: 1, poll: { strategy: fixed, interval: 20ms } }
questions:
  - id: q1
    question: ${QUESTION}
`;

/** Conversations in the account before the run, each answered by the proxy as `answer` says. */
async function brokenConversations(e: Awaited<ReturnType<typeof emulator>>, texts: string[]): Promise<string[]> {
  const c = legacyClient(e);
  const refs: string[] = [];
  for (const text of texts) refs.push((await c.create(text)).ref);
  return refs;
}

describe('a hostile server', () => {
  it('an unrelated conversation that is not JSON or always 500 never decides the lookup of a reset create', async () => {
    const e = await emulator({ timeScale: 0.001 });
    // Asked by another client once the lost create landed: newer, so listed before it.
    let notJson = '';
    let failing = '';
    let creates = 0;
    const proxy = await proxied(e.url, (req) => {
      if (req.operation === 'legacy.list' && notJson === '') {
        return {
          kind: 'reply',
          status: 200,
          body: async () => {
            if (notJson === '') [notJson, failing] = (await brokenConversations(e, ['Some other question?', 'Yet another question?'])) as [string, string];
            return (await raw(e, 'GET', `/.api/deepsearch/v1?${req.url.split('?')[1] ?? ''}`, { headers: { 'x-requested-with': 'test' } })).text;
          },
        };
      }
      if (req.operation === 'legacy.get' && req.url.endsWith(`/${notJson}`)) return { kind: 'reply', status: 200, body: '<html>not json</html>' };
      if (req.operation === 'legacy.get' && req.url.endsWith(`/${failing}`)) return { kind: 'status', status: 500 };
      if (req.operation === 'legacy.create' && ++creates === 1) return { kind: 'resetThenDeliver', delayMs: 0 };
      return { kind: 'forward' };
    });
    const run = await runSuite(await suite(ONE), [target({ name: 'main', emulator: proxy.url, timeScale: 0.001 })], { requestTimeoutMs: 300 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(storedItem(run.db, run.result.runId, 'main/question/q1/0').outcome).toBe('completed');
      expect(e.questionRecords().filter((r) => r.text === QUESTION)).toHaveLength(1);
    } finally {
      run.close();
    }
  });

  it('a lookup reads only the listed conversations of the lost text: a not-JSON and an always-500 one of other texts are never read', async () => {
    const e = await emulator({ timeScale: 0.001 });
    let others: string[] = [];
    let made: Promise<void> | undefined;
    const read: string[] = [];
    let creates = 0;
    const proxy = await proxied(e.url, (req) => {
      const ref = /\/(\d+)$/.exec(req.url.split('?')[0] ?? '')?.[1];
      if (req.operation === 'legacy.get' && ref !== undefined) read.push(ref);
      if (req.operation === 'legacy.get' && ref === others[0]) return { kind: 'reply', status: 200, body: '<html>not json</html>', contentType: 'text/html' };
      if (req.operation === 'legacy.get' && ref === others[1]) return { kind: 'status', status: 500 };
      if (req.operation === 'legacy.create' && ++creates === 1) {
        // Asked by another client while the lost create is in flight: both are in the lookup's window.
        made = brokenConversations(e, ['Some other question?', 'Yet another question?']).then((refs) => void (others = refs));
        return { kind: 'resetThenDeliver', delayMs: 0 };
      }
      if (req.operation === 'legacy.list' && made !== undefined) {
        const listed = made;
        return { kind: 'reply', status: 200, body: async () => (await listed, (await raw(e, 'GET', `/.api/deepsearch/v1?${req.url.split('?')[1] ?? ''}`, { headers: { 'x-requested-with': 'test' } })).text) };
      }
      return { kind: 'forward' };
    });
    const run = await runSuite(await suite(ONE), [target({ name: 'main', emulator: proxy.url, timeScale: 0.001 })], { requestTimeoutMs: 1000 });
    try {
      const logs = run.reporter.logs.join('\n');
      const victim = e.questionRecords().filter((r) => r.text === QUESTION);
      expect(victim, logs).toHaveLength(1);
      expect(others).toHaveLength(2);
      expect(new Set(read), logs).toEqual(new Set([String(victim[0]!.conversationId)]));
      const item = storedItem(run.db, run.result.runId, 'main/question/q1/0');
      expect(item.outcome, logs).toBe('completed');
      expect(item.conversationRef).toBe(String(victim[0]!.conversationId));
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
    } finally {
      run.close();
    }
  });

  it('the end-of-run check gives up a conversation of the lost text that always answers 500 and says so, instead of hanging', async () => {
    const e = await emulator({ timeScale: 0.001 });
    // Asked by another client just before: listed with the lost text, unowned, and unreadable.
    const [failing] = await brokenConversations(e, [QUESTION]);
    let creates = 0;
    const proxy = await proxied(e.url, (req) => {
      if (req.operation === 'legacy.get' && req.url.endsWith(`/${failing}`)) return { kind: 'status', status: 500 };
      if (req.operation === 'legacy.create' && ++creates === 1) return { kind: 'resetThenDeliver', delayMs: 0 };
      return { kind: 'forward' };
    });
    const started = Date.now();
    const run = await runSuite(await suite(ONE), [target({ name: 'main', emulator: proxy.url, timeScale: 0.001 })], { requestTimeoutMs: 300 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(logs).toContain('could not look for conversations no item owns');
      expect(logs).toContain(`conversation ${failing} could not be read`);
    } finally {
      run.close();
    }
  });

  it('a lookup that cannot read a conversation of the lost text keeps the item unfinished, never a service outcome', async () => {
    const e = await emulator({ timeScale: 0.001 });
    let creates = 0;
    let landed: string | undefined;
    const proxy = await proxied(e.url, (req) => {
      // The create acted, its reply is lost, and the conversation it made cannot be read.
      if (req.operation === 'legacy.create' && ++creates === 1) return { kind: 'resetThenDeliver', delayMs: 0 };
      if (req.operation === 'legacy.get' && landed !== undefined && req.url.endsWith(`/${landed}`)) return { kind: 'status', status: 500 };
      if (req.operation === 'legacy.list') landed ??= e.questionRecords()[0]?.conversationId.toString();
      return { kind: 'forward' };
    });
    const run = await runSuite(await suite(ONE), [target({ name: 'main', emulator: proxy.url, timeScale: 0.001 })], { requestTimeoutMs: 300 });
    try {
      const logs = run.reporter.logs.join('\n');
      const item = storedItem(run.db, run.result.runId, 'main/question/q1/0');
      expect(item.itemStatus, logs).toBe('running');
      expect(item.message).toContain('could not read conversation');
      expect(item.message).toContain('dsbench run --resume');
      expect(e.questionRecords()).toHaveLength(1);
    } finally {
      run.close();
    }
  });

  it('a server that answers every create with one conversation: the second item is a client error naming the first, nothing posted into it', async () => {
    const e = await emulator({ timeScale: 0.001 });
    let creates = 0;
    const proxy = await proxied(e.url, (req) => {
      if (req.operation === 'legacy.create' && ++creates > 1) {
        return { kind: 'reply', status: 200, body: async () => JSON.stringify((await raw(e, 'GET', '/.api/deepsearch/v1', { headers: { 'x-requested-with': 'test' } })).json[0]) };
      }
      return { kind: 'forward' };
    });
    const two = `
name: hostile
defaults: { api: legacy, concurrency: 1, poll: { strategy: fixed, interval: 20ms } }
questions:
  - id: q1
    question: ${QUESTION}
  - id: q2
    question: ${QUESTION}
    followups: [And who calls it?]
`;
    const run = await runSuite(await suite(two), [target({ name: 'main', emulator: proxy.url, timeScale: 0.001 })], { requestTimeoutMs: 300 });
    try {
      const first = storedItem(run.db, run.result.runId, 'main/question/q1/0');
      const second = storedItem(run.db, run.result.runId, 'main/question/q2/0');
      expect(first.outcome).toBe('completed');
      expect(second.outcome).toBe('client_error');
      expect(second.conversationRef ?? undefined).toBeUndefined();
      expect(second.message).toContain('main/question/q1/0 owns');
      expect(e.questionRecords()).toHaveLength(1);
    } finally {
      run.close();
    }
  });
});
