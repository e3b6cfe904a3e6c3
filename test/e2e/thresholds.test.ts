// Thresholds: a suite's limits on the run's aggregate metrics, validated with file:line:col, judged per
// target and for the whole run, with exit code 9, in the run summary, report.md, report.json, report.html
// and JUnit; a metric that was not measured fails, never passes silently.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSuite } from '../../src/config/load-suite.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { runReport } from '../../src/cli/report.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { FAST, cleanup, emulator, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const TOKEN = 'sgp_thresholds_token_0123456789abcdef';
let e: RunningEmulator;

beforeAll(async () => {
  e = await emulator({ ...FAST, users: [{ id: 1, username: 'admin', tokens: [{ token: TOKEN, scopes: ['externalapi:read', 'externalapi:write'] }] }] });
});
afterAll(cleanup);

const suite = (api: string, thresholds: string) => `name: limits
defaults: { api: ${api}, poll: { strategy: fixed, interval: 1s } }
thresholds:
${thresholds}
questions:
  - id: ok
    question: Where is retryPolicy implemented?
    expect: { contains: retryPolicy }
  - id: broken
    question: "[[internal-error]] Where is parseSuite?"
  - id: expected
    question: "[[internal-error]] Where is parseRetry?"
    expect: { state: error }
`;

async function run(api: string, thresholds: string, extra: string[] = []) {
  const db = path.join(tempDir(), 'runs.db');
  const exit = await dsbenchHere(['run', writeSuite(suite(api, thresholds)), '--endpoint', e.url, '--db', db, '--quiet', ...extra], { SRC_ACCESS_TOKEN: TOKEN });
  return { ...exit, db };
}

describe('thresholds in the suite file', () => {
  it('reports every bad expression at once, at its line and column', () => {
    const text = [
      'name: s',
      'thresholds:',
      '  latency: ["p95 < 4m", "p95 < soon"]',
      '  errorRate: "rate < 1.5"',
      '  credits: ["< 500"]',
      '  latencyy: ["p95 < 1s"]',
      'questions: [{ id: a, question: Where? }]',
      '',
    ].join('\n');
    expect(() => parseSuite(text, 's.yaml')).toThrow(
      [
        's.yaml:3:25: thresholds.latency[1]: "soon" is not a duration; use seconds (240) or units: 500ms, 90s, 4m, 1h',
        's.yaml:4:14: thresholds.errorRate: "1.5" is not a share between 0 and 1 (0.05) or a percentage (5%)',
        's.yaml:5:13: thresholds.credits[0]: name an aggregation before the operator: sum, pNN (p95, p99.9, ...), avg, med, min, max',
        's.yaml:6:3: thresholds.latencyy: unknown field "latencyy" (did you mean "latency"?)',
      ].join('\n'),
    );
  });

  it('takes every metric in its own units', () => {
    const text = `name: s
thresholds:
  latency: ["p95 < 4m", "avg <= 90", "max < 1m30s"]
  serverLatency: "p99.9 < 500ms"
  searchLatency: "med < 2s"
  errorRate: "< 5%"
  passRate: ">= 0.8"
  credits: ["sum < 500", "p90 < 20"]
  tokens: "avg < 10000"
  judgeScore: "avg >= 0.7"
  citationValidity: "rate > 0.9"
questions: [{ id: a, question: Where? }]
`;
    expect(parseSuite(text, 's.yaml').resolved.thresholds).toMatchObject({ latency: ['p95 < 4m', 'avg <= 90', 'max < 1m30s'], errorRate: ['< 5%'] });
  });
});

describe('thresholds judged on a run', () => {
  it('passes the limits that hold, exit 0; expected errors are no errors', async () => {
    const exit = await run('legacy', '  latency: ["p95 < 5m"]\n  errorRate: ["<= 0.34"]\n  credits: ["sum > 0"]');
    expect(exit.stdout).toMatch(/Thresholds: 3 passed, 0 failed\n/);
    expect(exit.stdout).toMatch(/errorRate <= 0\.34\s+0\.3333\s+passed/);
    // `broken` has no checks, so the run's verdict is ok; the thresholds that hold keep it so.
    expect(exit.code, exit.stderr).toBe(ExitCode.ok);
  });

  it('a crossed limit fails with exit code 9, shown in the summary, every report and JUnit', async () => {
    const junit = path.join(tempDir(), 'junit.xml');
    const exit = await run('legacy', '  errorRate: ["< 0.05"]\n  passRate: [">= 0.5"]', ['--junit', junit]);
    expect(exit.code, exit.stdout + exit.stderr).toBe(ExitCode.thresholdsFailed);
    expect(exit.stdout).toMatch(/Exit code 9\./);
    expect(exit.stdout).toMatch(/Thresholds: 1 passed, 1 failed \(exit code 9\)\n {2}errorRate < 0\.05 +0\.3333 +FAILED\n {2}passRate >= 0\.5 +1 +passed/);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testcase classname="limits.thresholds" name="errorRate &lt; 0.05" time="0.000">');
    expect(xml).toContain('<failure type="threshold" message="errorRate &lt; 0.05: 0.3333, FAILED">');
    expect(xml).toContain('<testcase classname="limits.thresholds" name="passRate &gt;= 0.5" time="0.000"/>');

    const out = path.join(tempDir(), 'report');
    let printed = '';
    const code = await runReport({ db: exit.db, run: 'latest', out, format: 'md,json,html' }, { write: (t: string) => (printed += t) });
    expect(code).toBe(ExitCode.ok);
    expect(printed).toMatch(/### Thresholds\n\n1 of 2 thresholds passed, \*\*1 failed\*\* \(dsbench run exits with code 9\)\.\n/);
    expect(printed).toMatch(/\| errorRate \| &lt; 0\.05 \| whole run \| 0\.3333 \| FAILED \|/);
    const json = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(json.thresholds).toEqual([
      { metric: 'errorRate', expression: '< 0.05', target: null, value: 1 / 3, passed: false },
      { metric: 'passRate', expression: '>= 0.5', target: null, value: 1, passed: true },
    ]);
    expect(readFileSync(path.join(out, 'report.html'), 'utf8')).toContain('"thresholds":[["errorRate","\\u003c 0.05","whole run","0.3333","FAILED"]');
  });

  it('a metric that was not measured fails as such: credits on the versioned API', async () => {
    const exit = await run('versioned', '  credits: ["sum < 500"]');
    expect(exit.code).toBe(ExitCode.thresholdsFailed);
    expect(exit.stdout).toMatch(/credits sum < 500 +FAILED: not measured/);
  });

  it('judge scores and citation validity where answers are graded; a search latency with no search is not measured', async () => {
    const db = path.join(tempDir(), 'runs.db');
    const text = `name: graded
defaults: { api: legacy, poll: { strategy: fixed, interval: 1s } }
thresholds:
  judgeScore: ["avg >= 0", "min > 1"]
  citationValidity: [">= 0"]
  searchLatency: ["p95 < 1s"]
questions:
  - id: graded
    question: Where is retryPolicy implemented?
    expect: { rubric: Names the file that defines retryPolicy., minCitationValidity: 0 }
`;
    const exit = await dsbenchHere(['run', writeSuite(text), '--endpoint', e.url, '--db', db, '--quiet', '--json'], { SRC_ACCESS_TOKEN: TOKEN });
    expect(exit.code, exit.stderr).toBe(ExitCode.thresholdsFailed);
    const results = JSON.parse(exit.stdout).thresholds as Array<{ metric: string; expression: string; value: number | null; passed: boolean; note?: string }>;
    // In the order of the schema's metrics.
    expect(results.map((r) => [r.metric, r.expression, r.passed, r.note ?? (r.value === null ? 'null' : 'value')])).toEqual([
      ['searchLatency', 'p95 < 1s', false, 'not measured'],
      ['judgeScore', 'avg >= 0', true, 'value'],
      ['judgeScore', 'min > 1', false, 'value'],
      ['citationValidity', '>= 0', true, 'value'],
    ]);
  });

  it('judged per target and for the whole run when the run has several targets', async () => {
    const db = path.join(tempDir(), 'runs.db');
    const file = writeSuite(suite('legacy', '  latency: ["p50 < 5m"]'));
    const exit = await dsbenchHere(['run', file, '--target', `a=${e.url}`, '--target', `b=${e.url}`, '--db', db, '--quiet', '--json'], { DSBENCH_TOKEN_A: TOKEN, DSBENCH_TOKEN_B: TOKEN });
    expect(exit.code, exit.stderr).toBe(ExitCode.ok);
    expect(JSON.parse(exit.stdout).thresholds.map((r: { target: string | null; passed: boolean }) => [r.target, r.passed])).toEqual([
      [null, true],
      ['a', true],
      ['b', true],
    ]);
  });
});
