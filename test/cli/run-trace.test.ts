// run --trace end to end: the flags, the kept links in every report, and --trace-fetch against the emulator
// and against a Jaeger API that refuses or sends too much.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { Transport } from '../../src/http/transport.js';
import { fetchTraces } from '../../src/report/trace-archive.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { ADMIN, FAST, closeAll, emulator } from '../helpers/emulator.js';
import { startServer } from '../helpers/server.js';

const dirs: string[] = [];
afterEach(async () => {
  await closeAll();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'dsbench-trace-'));
  dirs.push(d);
  return d;
}

const SUITE = `
name: traced
defaults:
  api: versioned
  poll: { strategy: fixed, interval: 1s }
questions:
  - id: plain
    question: Where is parseSuite defined?
  - id: token-limit
    question: "[[token-limit]] Explain every function of the parser."
    expect:
      state: completed
`;

describe('run --trace, its flags', () => {
  it('refuses an unknown selection, a fraction outside 0..1 and --trace-fetch alone, before any database is made', async () => {
    const dir = tempDir();
    const suite = path.join(dir, 'suite.yaml');
    writeFileSync(suite, SUITE);
    for (const args of [['--trace', 'some'], ['--trace', '1.5'], ['--trace-fetch'], ['--trace', 'all', '--trace-max-size', 'lots']]) {
      const ran = await dsbenchHere(['run', suite, '--db', path.join(dir, 'r.db'), ...args], {});
      expect(ran.code, ran.stderr).toBe(2);
      expect(ran.stderr).toMatch(/--trace/);
    }
    expect(readdirSync(dir)).toEqual(['suite.yaml']);
  });
});

describe('run --trace all --trace-fetch against the emulator', () => {
  it('links every item to the trace of its conversation in questions.csv, report.json, report.md, report.html and JUnit, and saves the traces', async () => {
    const e = await emulator(FAST);
    const dir = tempDir();
    const suite = path.join(dir, 'suite.yaml');
    writeFileSync(suite, SUITE);
    const db = path.join(dir, 'runs.db');
    const ran = await dsbenchHere(['run', suite, '--endpoint', e.url, '--db', db, '--trace', 'all', '--trace-fetch', '--quiet'], { SRC_ACCESS_TOKEN: ADMIN });
    expect(ran.stderr).toMatch(/2 of 2 traces saved in/);
    // The run's own summary lists its slowest items with their links.
    expect(ran.stdout).toContain('Slowest items');
    expect(ran.stdout).toMatch(new RegExp(`${e.url.replace(/[.]/g, '\\.')}/-/debug/jaeger/trace/\\w+`));
    const saved = path.join(dir, 'runs-traces-1');
    const index = JSON.parse(readFileSync(path.join(saved, 'index.json'), 'utf8'));
    expect(index.traces).toHaveLength(2);
    const first = JSON.parse(gunzipSync(readFileSync(path.join(saved, index.traces[0].file))).toString('utf8'));
    expect(first.data[0].spans.map((s: { operationName: string }) => s.operationName)).toContain('deepsearch.agent');
    expect(index.traces[0].slowest[0]).toMatchObject({ operation: expect.any(String), ms: expect.any(Number) });

    const out = path.join(dir, 'report');
    const junit = path.join(dir, 'junit.xml');
    const report = await dsbenchHere(['report', '--db', db, '--out', out, '--format', 'csv,json,md,html', '--junit', junit], {});
    expect(report.code, report.stderr).toBe(0);
    const csv = readFileSync(path.join(out, 'questions.csv'), 'utf8');
    expect(csv.split('\n')[0]).toMatch(/,trace_id,trace_url$/);
    // The last field of each row (answers hold commas and line ends; the trace URL closes the row).
    const urls = [...csv.matchAll(new RegExp(`,[0-9a-f]{32},(${e.url}/-/debug/jaeger/trace/[0-9a-f]{32})$`, 'gm'))].map((m) => m[1]!);
    expect(urls).toHaveLength(2);
    const json = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(json.traces.slowest).toHaveLength(2);
    expect(json.traces.failed.map((f: { suiteItemId: string }) => f.suiteItemId)).toEqual(['token-limit']);
    expect(json.traces.fetched.saved).toBe(2);
    expect(readFileSync(path.join(out, 'report.md'), 'utf8')).toMatch(/### Slowest items[\s\S]*\/-\/debug\/jaeger\/trace\//);
    expect(readFileSync(path.join(out, 'report.html'), 'utf8')).toContain('"traces":{"traces":');
    expect(readFileSync(junit, 'utf8')).toMatch(/trace: http:\/\/127\.0\.0\.1:\d+\/-\/debug\/jaeger\/trace\/[0-9a-f]{32}/);
    // The trace link opens the trace of the conversation.
    const opened = await fetch(urls[0]!, { headers: { Authorization: `token ${ADMIN}` } });
    expect(((await opened.json()) as { data: unknown[] }).data).toHaveLength(1);
    expect(readFileSync(path.join(out, 'questions.csv'), 'utf8')).not.toContain(ADMIN);
  });
});

describe('--trace-fetch against a Jaeger API that misbehaves', () => {
  const ids = ['a1', 'b2', 'c3'];

  it('records a 403 and fetches nothing more; never throws', async () => {
    const server = await startServer((_req, res, _body, n) => {
      if (n === 1) res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"spans":[{"operationName":"x","duration":5000}]}]}');
      else res.writeHead(403).end('site admins only');
    });
    const transport = new Transport({ endpoint: server.url, headers: {}, retry: { maxAttempts: 1 } });
    try {
      const dir = tempDir();
      const got = await fetchTraces(transport, { runId: 1, dir, traces: ids.map((id) => ({ id, itemKey: `k/${id}` })), maxBytes: 1_000_000, timeoutMs: 5_000 });
      expect(got.saved).toBe(1);
      expect(got.traces[0]!.slowest).toEqual([{ operation: 'x', ms: 5 }]);
      expect(got.stopped).toMatch(/trace b2: HTTP 403, refused/);
      expect(server.received).toHaveLength(2);
      expect(JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')).stopped).toMatch(/403/);
    } finally {
      await transport.close();
      await server.close();
    }
  });

  it('cuts a body past the size cap and says so; a server that stalls meets the deadline', async () => {
    const big = await startServer((_req, res) => res.writeHead(200).end('x'.repeat(5000)));
    const transport = new Transport({ endpoint: big.url, headers: {}, retry: { maxAttempts: 1 } });
    try {
      const dir = tempDir();
      const got = await fetchTraces(transport, { runId: 1, dir, traces: ids.map((id) => ({ id, itemKey: id })), maxBytes: 3000, timeoutMs: 5_000 });
      expect(got.traces).toEqual([expect.objectContaining({ id: 'a1', bytes: 3000, cut: true })]);
      expect(got.stopped).toMatch(/cut at the size cap/);
      expect(gunzipSync(readFileSync(path.join(dir, 'a1.json.gz')))).toHaveLength(3000);
    } finally {
      await transport.close();
      await big.close();
    }
    const stall = await startServer((_req, res) => {
      res.writeHead(200);
      res.write('{');
    });
    const slow = new Transport({ endpoint: stall.url, headers: {}, retry: { maxAttempts: 1 } });
    try {
      const got = await fetchTraces(slow, { runId: 1, dir: tempDir(), traces: [{ id: 'a1', itemKey: 'a1' }], maxBytes: 3000, timeoutMs: 300 });
      expect(got.saved).toBe(0);
      expect(got.stopped).toMatch(/trace a1: .*no further trace/);
    } finally {
      await slow.close();
      await stall.close();
    }
  });
});
