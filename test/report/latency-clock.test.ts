import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/report/compare/compare.js';
import { EMULATED_SEARCH_TIME } from '../../src/report/compare/compare-document.js';
import { writeReport } from '../../src/report/report.js';
import { exposition } from '../../src/report/push-metrics.js';
import { collectRunMetrics } from '../../src/report/run-metrics.js';
import { evaluateThresholds } from '../../src/report/thresholds.js';
import type { Store } from '../../src/store/store.js';
import { type ItemScript, completed, question, recordRun, search, searchRecord, useTempStore } from './fixtures.js';

// A latency says which clock it is: the server's own (a question's server time, a search's durationMs) or
// dsbench's wall clock; compare and report must not show one as the other.

let dir: string;
let db: string;
let store: Store;
useTempStore((t) => ({ dir, db, store } = t));

/** Searches s0..s5, each with the server's duration `ms(i)` (none where undefined) and a wall time 1,000 ms longer. */
function searches(ms: (i: number) => number | undefined): ItemScript[] {
  return [0, 1, 2, 3, 4, 5].map((i) => {
    const durationMs = ms(i);
    return { item: search(`s${i}`), search: searchRecord({ durationMs, wallMs: (durationMs ?? 100) + 1000 }) };
  });
}

async function metrics(b: number, c: number) {
  const result = await compareRuns({ baseline: { db, run: String(b) }, candidate: { db, run: String(c) }, out: path.join(dir, `cmp-${b}-${c}`) });
  const md = fs.readFileSync(path.join(dir, `cmp-${b}-${c}`, 'compare.md'), 'utf8');
  return { byName: new Map(result.summary.metrics.map((m) => [m.metric, m])), md };
}

describe('latency clocks', () => {
  it('compare names the server clock when both sides report the server duration', async () => {
    const b = recordRun(store, [...searches((i) => 100 + i), { item: question('q0'), turns: [completed({ serverMs: 2000 })] }]);
    const c = recordRun(store, [...searches((i) => 200 + i), { item: question('q0'), turns: [completed({ serverMs: 2000 })] }]);
    const { byName, md } = await metrics(b, c);
    const s = byName.get('search_latency')!;
    expect(s.clock).toEqual({ server: 6, wall: 0 });
    // The server's durations, not the wall times 1,000 ms longer.
    expect(s.baselineMedian).toBeCloseTo(102.5, 5);
    expect(byName.get('latency')!.clock).toEqual({ server: 1, wall: 0 });
    expect(byName.get('tokens')!.clock).toBeNull();
    expect(md).toMatch(/\| search latency \(server\) \|/);
    expect(md).toMatch(/\| latency \(server\) \|/);
    expect(md).toContain('(wall) dsbench');
    expect(md).not.toContain(EMULATED_SEARCH_TIME);
  });

  it("compare says when an emulator's searches were timed: their durations are its machine's", async () => {
    const emulated = [{ name: 'prod', url: 'http://127.0.0.1:3080', api: 'versioned' as const, emulated: true }];
    const b = recordRun(store, searches((i) => 100 + i), { targets: emulated });
    const c = recordRun(store, searches((i) => 300 + i), { targets: emulated });
    const result = await compareRuns({ baseline: { db, run: String(b) }, candidate: { db, run: String(c) }, out: path.join(dir, 'cmp'), html: true });
    expect(result.candidate.servedByEmulator).toBe(true);
    // The page embeds its data as JSON: the note is there for the viewer to show under the metrics.
    expect(fs.readFileSync(path.join(dir, 'cmp', 'compare.html'), 'utf8')).toContain(`"metricsNote":${JSON.stringify(EMULATED_SEARCH_TIME)}`);
    expect(fs.readFileSync(path.join(dir, 'cmp', 'compare.md'), 'utf8')).toContain(EMULATED_SEARCH_TIME);
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'cmp', 'compare.json'), 'utf8'));
    expect(json.baseline.servedByEmulator).toBe(true);
  });

  it('compare counts the pairs timed by the wall clock where a side lacks the server duration', async () => {
    const b = recordRun(store, searches((i) => 100 + i));
    const c = recordRun(store, searches((i) => (i < 2 ? undefined : 200 + i)));
    const { byName, md } = await metrics(b, c);
    expect(byName.get('search_latency')!.clock).toEqual({ server: 4, wall: 2 });
    expect(md).toMatch(/\| search latency \(server 4, wall 2\) \|/);
    const w = recordRun(store, searches(() => undefined));
    const wallOnly = await metrics(b, w);
    expect(wallOnly.byName.get('search_latency')!.clock).toEqual({ server: 0, wall: 6 });
    expect(wallOnly.md).toMatch(/\| search latency \(wall\) \|/);
  });

  it("report.md's searches table gives the server's duration beside the wall time", async () => {
    recordRun(store, searches((i) => 1000 * (i + 1)));
    await writeReport({ db, run: 'latest', out: path.join(dir, 'out'), formats: new Set(['md']), now: new Date('2025-03-01T02:00:00.000Z') });
    const md = fs.readFileSync(path.join(dir, 'out', 'report.md'), 'utf8');
    const header = md.split('\n').find((l) => l.includes('matches mean'))!;
    const row = md.split('\n')[md.split('\n').indexOf(header) + 2]!;
    const cells = (l: string) => l.split('|').map((x) => x.trim());
    const at = (name: string) => cells(row)[cells(header).indexOf(name)];
    // Durations 1..6 s: nearest-rank p50 3 s, p90 6 s; wall 1 s more each.
    expect(at('server p50 / p90')).toBe('3.0 s / 6.0 s');
    expect(at('wall p50 / p90')).toBe('4.0 s / 7.0 s');
  });

  it('thresholds and pushed metrics keep the server duration apart from the wall time', () => {
    // Durations 100..600 ms, wall times 1,100..1,600 ms.
    const runId = recordRun(store, searches((i) => 100 * (i + 1)));
    const scopes = collectRunMetrics(store.db, runId);
    const results = evaluateThresholds(scopes, [
      ['searchLatency', ['p90 < 1s']],
      ['searchServerLatency', ['p90 < 1s']],
    ]);
    // The whole run's results (the run's targets are judged too).
    expect(results.filter((r) => r.target === null).map((r) => [r.metric, r.value, r.passed])).toEqual([
      ['searchLatency', 1600, false],
      ['searchServerLatency', 600, true],
    ]);
    const text = exposition({ id: runId }, scopes, []);
    expect(text).toContain(`dsbench_search_server_latency_seconds{target="all",run="${runId}",quantile="0.5"} 0.3\n`);
    expect(text).toContain(`dsbench_search_latency_seconds{target="all",run="${runId}",quantile="0.5"} 1.3\n`);
  });

  it('a search with no server duration leaves searchServerLatency not measured', () => {
    const runId = recordRun(store, searches(() => undefined));
    const result = evaluateThresholds(collectRunMetrics(store.db, runId), [['searchServerLatency', ['p90 < 1s']]]).find((r) => r.target === null);
    expect(result).toMatchObject({ metric: 'searchServerLatency', value: null, passed: false, note: 'not measured' });
  });
});
