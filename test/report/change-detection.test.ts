import { describe, expect, it } from 'vitest';
import { changeBlocks } from '../../src/report/change-blocks.js';
import { detectChanges } from '../../src/report/change-detection.js';
import { renderText } from '../../src/report/document.js';
import type { MetricSeries, Night } from '../../src/report/history-series.js';

// Change points of nightly series set beside the instance's version, without a database.

const scope = { target: 'prod', kind: 'suite' as const, name: null };

function nights(versions: Array<string | null>): Night[] {
  return versions.map((v, i): Night => ({ runId: 100 + i, startedAt: `2026-01-${String(i + 1).padStart(2, '0')}`, productVersions: v === null ? {} : { prod: v } }));
}

/** Latency about 100 s, x1.5 from night `at`; a pass rate of 80% +- 1 point. */
function series(n: number, at: number): MetricSeries[] {
  const wobble = (i: number) => ((i * 7) % 5) - 2;
  return [
    { scope, metric: 'latency p50', values: Array.from({ length: n }, (_, i) => (100_000 + 1000 * wobble(i)) * (i >= at ? 1.5 : 1)) },
    { scope, metric: 'pass rate', values: Array.from({ length: n }, (_, i) => 0.8 + 0.01 * wobble(i)) },
  ];
}

describe('change detection over nights', () => {
  it('names the nearest version change, its distance in nights and its direction', () => {
    const v = Array.from({ length: 14 }, (_, i): string | null => (i < 7 ? '6.9.2' : '7.0.1'));
    v[3] = null;
    const d = detectChanges(nights(v), series(14, 8), 1);
    expect(d.changes).toHaveLength(1);
    expect(d.changes[0]).toMatchObject({ metric: 'latency p50', runId: 108, night: 8, unit: 'ratio', version: { runId: 107, from: '6.9.2', to: '7.0.1', nights: -1 } });
    expect(d.changes[0]!.change).toBeCloseTo(0.5, 1);
    expect(renderText(changeBlocks(d))).toContain('6.9.2 → 7.0.1 at run 107, 1 night before');
  });

  it('no version recorded, or only another target\'s: no version to name', () => {
    const d = detectChanges(nights(Array(14).fill(null)), series(14, 8), 1);
    expect(d).toMatchObject({ versionsKnown: false, changes: [{ version: null }] });
    expect(renderText(changeBlocks(d))).toContain('not recorded');
    const staging = nights(Array(14).fill(null)).map((n, i) => ({ ...n, productVersions: { staging: i < 8 ? '6.9.2' : '7.0.1' } }));
    const other = detectChanges(staging, series(14, 8), 1);
    expect(other).toMatchObject({ versionsKnown: true, changes: [{ version: null }] });
    expect(renderText(changeBlocks(other))).toContain('none in these nights');
  });

  it('too few nights: says how many there are and how many are needed', () => {
    const d = detectChanges(nights(Array(6).fill('7.0.1')), series(6, 3), 1);
    expect(d).toMatchObject({ tooFew: true, nights: 6, need: 8, changes: [] });
    expect(renderText(changeBlocks(d))).toContain('Change points need at least 8 nights; this history has 6.');
  });
});
