// run --trace: which items ask the instance for a trace, what their replies' trace headers leave in the
// store, and that a link opens the trace of the item's conversation.
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { listenLoopback } from '../helpers/server.js';
import { itemTraceLinks, runTraces, storedItems } from '../../src/store/queries.js';
import { parseTraceSelection, tracesItem } from '../../src/model/trace.js';
import { ADMIN, FAST, cleanup, corpusDir, emulator, runSuite, suite, target } from './fixtures/harness.js';

afterEach(cleanup);

const SUITE = (api: 'legacy' | 'versioned') => `
name: traced
defaults:
  api: ${api}
  concurrency: 2
  poll: { strategy: fixed, interval: 1s }
questions:
  - id: follow
    question: Where is the retryPolicy of fetch implemented?
    followups:
      - Which status codes does retryPolicy retry?
  - id: plain
    question: Where is parseSuite defined?
  - id: token-limit
    question: "[[token-limit]] Explain every function of the parser."
searches:
  - id: retry
    query: retry count:all
`;

const ITEMS = ['main/question/follow/0', 'main/question/plain/0', 'main/question/token-limit/0', 'main/search/retry/0'];

async function spansOf(url: string): Promise<string[]> {
  const res = await fetch(url, { headers: { Authorization: `token ${ADMIN}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ spans: Array<{ operationName: string }> }> }).data[0]!.spans.map((s) => s.operationName);
}

describe.each(['legacy', 'versioned'] as const)('run --trace all (%s)', (api) => {
  it('keeps a trace of every request of every item, and each item link opens the trace of its conversation', async () => {
    const e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
    const run = await runSuite(await suite(SUITE(api)), [target({ name: 'main', emulator: e })], { trace: { kind: 'all' } });
    try {
      const { db, result } = run;
      const traces = runTraces(db, result.runId);
      const ops = (key: string, turn: number | null) => traces.filter((t) => t.itemKey === key && t.turn === turn).map((t) => t.operation);
      expect(ops('main/question/follow/0', 0)).toEqual(expect.arrayContaining(['create', 'poll']));
      expect(ops('main/question/follow/0', 1)).toEqual(expect.arrayContaining(['follow-up', 'poll']));
      expect(ops('main/search/retry/0', null)).toEqual(['search']);
      expect(traces.every((t) => /^[0-9a-f]{32}$/.test(t.traceId) && t.url === `${e.url}/-/debug/jaeger/trace/${t.traceId}` && t.note === null)).toBe(true);
      // Each request its own trace.
      expect(new Set(traces.map((t) => t.traceId)).size).toBe(traces.length);

      const links = itemTraceLinks(db, result.runId);
      expect([...links.keys()].sort()).toEqual([...ITEMS].sort());
      const create = traces.find((t) => t.itemKey === 'main/question/follow/0' && t.operation === 'create')!;
      expect(links.get('main/question/follow/0')).toEqual({ id: create.traceId, url: create.url });
      const spans = await spansOf(create.url!);
      // Both questions of the conversation, each with its agent run and its answer.
      expect(spans.filter((s) => s === 'deepsearch.agent')).toHaveLength(2);
      expect(spans).toContain('model.answer');
      expect(await spansOf(links.get('main/search/retry/0')!.url!)).toHaveLength(1);
    } finally {
      run.close();
    }
  });
});

describe('run --trace, other selections', () => {
  it('failed: traces every request but keeps links only for the items that failed or erred', async () => {
    const e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
    const run = await runSuite(await suite(SUITE('versioned')), [target({ name: 'main', emulator: e })], { trace: { kind: 'failed' } });
    try {
      expect(storedItems(run.db, run.result.runId).find((i) => i.itemKey === 'main/question/token-limit/0')?.outcome).toBe('error');
      expect([...itemTraceLinks(run.db, run.result.runId).keys()]).toEqual(['main/question/token-limit/0']);
      expect(runTraces(run.db, run.result.runId).map((t) => t.operation)).toEqual(expect.arrayContaining(['create', 'poll']));
    } finally {
      run.close();
    }
  });

  it('a fraction traces the items its seeded draw picks, the same ones on every run; none without --trace', async () => {
    const e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
    const picked = ITEMS.filter((key) => tracesItem({ kind: 'fraction', fraction: 0.5 }, key));
    for (let i = 0; i < 2; i++) {
      const run = await runSuite(await suite(SUITE('versioned')), [target({ name: 'main', emulator: e })], { trace: { kind: 'fraction', fraction: 0.5 } });
      expect([...itemTraceLinks(run.db, run.result.runId).keys()].sort()).toEqual(picked.sort());
      run.close();
    }
    const plain = await runSuite(await suite(SUITE('versioned')), [target({ name: 'main', emulator: e })]);
    expect(runTraces(plain.db, plain.result.runId)).toEqual([]);
    plain.close();
  });

  it('parses all, failed and fractions in 0..1; anything else is a usage error', () => {
    expect(parseTraceSelection('all')).toEqual({ kind: 'all' });
    expect(parseTraceSelection('FAILED')).toEqual({ kind: 'failed' });
    expect(parseTraceSelection('0.1')).toEqual({ kind: 'fraction', fraction: 0.1 });
    expect(parseTraceSelection('1')).toEqual({ kind: 'fraction', fraction: 1 });
    for (const bad of ['some', '1.5', '-0.1', '', 'NaN', '1e-1']) expect(() => parseTraceSelection(bad)).toThrow(/--trace .*all, failed, or a fraction/);
    // A rerun draws the same: the draw depends on the key alone.
    expect(tracesItem({ kind: 'fraction', fraction: 0.3 }, 'a/question/x/0')).toBe(tracesItem({ kind: 'fraction', fraction: 0.3 }, 'a/question/x/0'));
    const share = Array.from({ length: 2000 }, (_, i) => tracesItem({ kind: 'fraction', fraction: 0.1 }, `t/question/q${i}/0`)).filter(Boolean).length;
    expect(share).toBeGreaterThan(140);
    expect(share).toBeLessThan(260);
  });
});

/**
 * In front of an emulator, a server whose trace headers misbehave: X-Trace-URL holding the token (in its
 * user, its query and its path) on creates, one that is not a URL on polls, none at all on follow-ups.
 */
async function misbehavingTraces(upstream: string) {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const up = new URL(req.url ?? '/', upstream);
      const proxied = httpRequest(up, { method: req.method, headers: { ...req.headers, host: up.host } }, (reply) => {
        const headers = { ...reply.headers };
        const id = String(headers['x-trace'] ?? '');
        const body = req.method === 'POST' ? Buffer.concat(chunks).toString('utf8') : '';
        if (/questions|AddConversationQuestion/.test(req.url ?? '')) {
          delete headers['x-trace'];
          delete headers['x-trace-url'];
        } else if (/Create|POST/.test(`${req.url} ${req.method}`) && !/Get/.test(req.url ?? '') && body !== '') {
          headers['x-trace-url'] = `https://me:${ADMIN}@traces.example.com/trace/${id}?token=${ADMIN}&trace_id=${id}`;
        } else if (id !== '') headers['x-trace-url'] = 'http://[not a url';
        res.writeHead(reply.statusCode ?? 502, headers);
        reply.pipe(res);
      });
      proxied.end(Buffer.concat(chunks));
    });
  });
  return listenLoopback(server);
}

describe('run --trace against a server whose trace headers misbehave', () => {
  it('keeps the id with a note for a URL that is not one, records none when headers are missing, and never stores the token', async () => {
    const e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
    const proxy = await misbehavingTraces(e.url);
    try {
      const run = await runSuite(await suite(SUITE('versioned')), [target({ name: 'main', emulator: proxy.url, timeScale: FAST.timeScale! })], { trace: { kind: 'all' } });
      try {
        expect(run.result.exitCode).toBe(0);
        const traces = runTraces(run.db, run.result.runId);
        const creates = traces.filter((t) => t.operation === 'create');
        expect(creates).toHaveLength(3);
        for (const t of creates) expect(t.url).toBe(`https://traces.example.com/trace/${t.traceId}?trace_id=${t.traceId}`);
        const polls = traces.filter((t) => t.operation === 'poll');
        expect(polls.length).toBeGreaterThan(0);
        expect(polls.every((t) => t.url === null && /not a URL/.test(t.note ?? ''))).toBe(true);
        expect(traces.filter((t) => t.operation === 'follow-up')).toEqual([]);
        expect(JSON.stringify(traces)).not.toContain(ADMIN);
      } finally {
        run.close();
      }
    } finally {
      await proxy.close();
    }
  });
});
