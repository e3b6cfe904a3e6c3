// `--push-metrics URL`: a run's aggregate metrics pushed to a real Prometheus Pushgateway, scraped by a real
// Prometheus and read back through its HTTP API; and a push that fails is one line on stderr, never the
// run's exit code.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReport } from '../../src/cli/report.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { PUSHED_METRICS } from '../../src/report/push-metrics.js';
import { findRun, listRuns, storedItems } from '../../src/store/index.js';
import { startServer } from '../helpers/server.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { FAST, cleanup, corpusDir, emulator, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const TOKEN = 'sgp_push_token_0123456789abcdef';
const SUITE = `name: pushed
defaults: { api: legacy, poll: { strategy: fixed, interval: 1s } }
thresholds:
  latency: ["p95 < 5m"]
  errorRate: ["< 0.05"]
questions:
  - id: answered
    question: Where is backoffDelay implemented?
    expect: { contains: backoffDelay }
  - id: failing
    question: "[[internal-error]] Where is loadSuite?"
searches:
  - id: count
    query: retry count:all
`;

let e: RunningEmulator;
beforeAll(async () => {
  e = await emulator({ ...FAST, corpus: { dir: corpusDir() }, users: [{ id: 1, username: 'admin', tokens: [{ token: TOKEN, scopes: ['externalapi:read', 'externalapi:write'] }] }] });
});
afterAll(cleanup);

async function run(extra: string[]) {
  const db = path.join(tempDir(), 'runs.db');
  const exit = await dsbenchHere(['run', writeSuite(SUITE), '--endpoint', e.url, '--db', db, '--quiet', '--label', 'nightly', ...extra], { SRC_ACCESS_TOKEN: TOKEN });
  return { ...exit, db };
}

describe('the Grafana dashboard', () => {
  it('plots every metric pushed and queries no other', () => {
    const dashboard = JSON.parse(readFileSync(new URL('../../dashboards/dsbench.json', import.meta.url), 'utf8')) as { panels: Array<{ targets: Array<{ expr: string }> }> };
    const queried = new Set(dashboard.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/\bdsbench_[a-z_]+/g) ?? [])));
    expect([...queried].sort()).toEqual([...PUSHED_METRICS].sort());
  });
});

describe('a push that fails', () => {
  it('is one line on stderr (URL, status, what to do); the run keeps its exit code and its record', async () => {
    const gateway = await startServer((_req, res) => res.writeHead(400, { 'content-type': 'text/plain' }).end('pushed metrics are invalid or inconsistent'));
    try {
      const base = gateway.url.replace('http://', 'http://ci:s3cret@');
      const exit = await run(['--push-metrics', `${base}/gw/`]);
      // errorRate 1/3 fails its threshold: the exit code is the run's own, the push adds nothing.
      expect(exit.code, exit.stderr).toBe(ExitCode.thresholdsFailed);
      const [request] = gateway.received;
      expect(request).toMatchObject({ method: 'PUT', url: '/gw/metrics/job/dsbench/suite/pushed/label/nightly' });
      expect(request!.headers.authorization).toBe(`Basic ${Buffer.from('ci:s3cret').toString('base64')}`);
      expect(request!.body).toContain('dsbench_threshold_passed{target="all",run="1",metric="errorRate",threshold="< 0.05"} 0\n');
      const lines = exit.stderr.split('\n').filter((l) => l.includes('push'));
      expect(lines).toEqual([
        `dsbench: could not push metrics to ${gateway.url}/gw/metrics/job/dsbench/suite/pushed/label/nightly: HTTP 400 (pushed metrics are invalid or inconsistent); check the URL and the gateway's log; the run is recorded; push it again with dsbench report 1 --push-metrics URL`,
      ]);
      expect(exit.stderr).not.toContain('s3cret');
      const check = new Database(exit.db, { readonly: true });
      expect(findRun(check, 1)?.status).toBe('completed');
      check.close();
    } finally {
      await gateway.close();
    }
  });

  it('a redirect (to another origin) is not followed: reported as a failed push, the other server gets nothing', async () => {
    const elsewhere = await startServer((_req, res) => res.writeHead(200).end());
    const gateway = await startServer((_req, res) => res.writeHead(307, { location: `${elsewhere.url}/metrics` }).end());
    try {
      const exit = await run(['--push-metrics', gateway.url]);
      expect(exit.code, exit.stderr).toBe(ExitCode.thresholdsFailed);
      expect(gateway.received).toHaveLength(1);
      expect(elsewhere.received).toHaveLength(0);
      expect(exit.stderr).toContain(`dsbench: could not push metrics to ${gateway.url}/metrics/job/dsbench/suite/pushed/label/nightly: HTTP 307 redirects to "${elsewhere.url}/metrics", which is not followed`);
      expect(exit.stderr).not.toContain('pushed the metrics');
    } finally {
      await Promise.all([gateway.close(), elsewhere.close()]);
    }
  });

  it('to nothing listening: reported the same way; a malformed URL is refused before the run', async () => {
    const gone = await startServer(() => undefined);
    await gone.close();
    const exit = await run(['--push-metrics', gone.url]);
    expect(exit.code).toBe(ExitCode.thresholdsFailed);
    expect(exit.stderr).toMatch(/dsbench: could not push metrics to http:\/\/127\.0\.0\.1:\d+\/metrics\/job\/dsbench\/suite\/pushed\/label\/nightly: .*; is the Pushgateway running there\? the run is recorded/);

    const bad = await run(['--push-metrics', 'localhost:9091']);
    expect(bad.code).toBe(ExitCode.usage);
    expect(bad.stderr).toContain('--push-metrics needs an http or https URL, got localhost:');
  });
});

// Debian's packages; .ci/run installs them. Without them this block is skipped, saying why.
const BINARIES = ['prometheus', 'prometheus-pushgateway'];
const missing = BINARIES.filter((b) => !(process.env.PATH ?? '').split(path.delimiter).some((dir) => existsSync(path.join(dir, b))));
const title = missing.length === 0 ? 'a real Pushgateway and Prometheus' : `a real Pushgateway and Prometheus (SKIPPED: ${missing.join(' and ')} not on PATH; apt-get install prometheus prometheus-pushgateway)`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls `probe` until it returns a value: the external processes start and scrape on their own clock. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms${last ? ` (${String(last)})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.skipIf(missing.length > 0)(title, () => {
  const children: ChildProcess[] = [];
  let gateway = '';
  let prometheus = '';

  function start(command: string, args: string[]): void {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.resume();
    children.push(child);
  }

  beforeAll(async () => {
    const dir = tempDir('dsbench-prometheus-');
    const [gatewayPort, prometheusPort] = [await freePort(), await freePort()];
    gateway = `http://127.0.0.1:${gatewayPort}`;
    prometheus = `http://127.0.0.1:${prometheusPort}`;
    const config = path.join(dir, 'prometheus.yml');
    writeFileSync(
      config,
      `global: { scrape_interval: 1s, evaluation_interval: 1s }\nscrape_configs:\n  - job_name: pushgateway\n    honor_labels: true\n    static_configs: [{ targets: ['127.0.0.1:${gatewayPort}'] }]\n`,
    );
    start('prometheus-pushgateway', [`--web.listen-address=127.0.0.1:${gatewayPort}`]);
    start('prometheus', [`--config.file=${config}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${prometheusPort}`]);
    for (const url of [gateway, prometheus]) await until(`${url} ready`, async () => ((await fetch(`${url}/-/ready`)).ok ? true : undefined));
  }, 40_000);

  afterAll(() => {
    for (const child of children) child.kill();
  });

  async function query(expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }> | undefined> {
    const response = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await response.json()) as { data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
    return body.data.result.length > 0 ? body.data.result : undefined;
  }

  it('run --push-metrics: pushed, scraped, and read back from Prometheus with the values the database holds', async () => {
    const exit = await run(['--push-metrics', gateway]);
    expect(exit.code, exit.stderr).toBe(ExitCode.thresholdsFailed);
    expect(exit.stderr).toContain(`dsbench: pushed the metrics of run 1 to ${gateway}/metrics/job/dsbench/suite/pushed/label/nightly\n`);

    const credits = await until('dsbench_credits scraped', () => query('dsbench_credits{job="dsbench",suite="pushed",label="nightly",target="all"}'));
    const check = new Database(exit.db, { readonly: true });
    const recorded = listRuns(check)[0]!.credits;
    const wall = storedItems(check, 1)
      .flatMap((i) => i.turns.map((t) => t.wallMs!))
      .sort((a, b) => a - b);
    check.close();
    expect(credits).toEqual([{ metric: expect.objectContaining({ run: '1', target: 'all' }), value: [expect.any(Number), String(recorded)] }]);
    // Nearest rank over the two turns: p50 is the faster one, p95 the slower.
    const p95 = await query('dsbench_latency_seconds{suite="pushed",target="all",quantile="0.95"}');
    expect(p95![0]!.value[1]).toBe(String(wall[1]! / 1000));
    expect((await query('dsbench_error_rate{suite="pushed",target="all"}'))![0]!.value[1]).toBe(String(1 / 3));
    expect((await query('dsbench_searches{suite="pushed",target="default"}'))![0]!.value[1]).toBe('1');
    const thresholds = await query('dsbench_threshold_passed{suite="pushed",target="all"}');
    expect(Object.fromEntries(thresholds!.map((r) => [r.metric.threshold, r.value[1]]))).toEqual({ 'p95 < 5m': '1', '< 0.05': '0' });
  });

  it('report --push-metrics pushes a recorded run again; a run without credits sends none rather than 0', async () => {
    const db = path.join(tempDir(), 'versioned.db');
    const suite = SUITE.replace('api: legacy', 'api: versioned').replace('name: pushed', 'name: versioned');
    const exit = await dsbenchHere(['run', writeSuite(suite), '--endpoint', e.url, '--db', db, '--quiet'], { SRC_ACCESS_TOKEN: TOKEN });
    expect(exit.code, exit.stderr).toBe(ExitCode.thresholdsFailed);
    let stderr = '';
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
    try {
      expect(await runReport({ db, run: 'latest', format: 'json', out: path.join(tempDir(), 'r'), pushMetrics: gateway }, { write: () => true })).toBe(ExitCode.ok);
    } finally {
      process.stderr.write = write;
    }
    expect(stderr).toBe(`dsbench: pushed the metrics of run 1 to ${gateway}/metrics/job/dsbench/suite/versioned/label@base64/=\n`);
    await until('dsbench_turns of the versioned run scraped', () => query('dsbench_turns{suite="versioned",target="all"}'));
    expect(await query('dsbench_credits{suite="versioned"}')).toBeUndefined();
  });
});
