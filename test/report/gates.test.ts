import { describe, expect, it } from 'vitest';
import type { PairedChange } from '../../src/stats/bootstrap.js';
import { DEFAULT_THRESHOLDS, gateLevels, judge, parseFailOn, parsePercent, passOn, VERDICT_EXIT_CODE, verdictLine, verdictOf } from '../../src/report/compare/gates.js';
import { UsageError } from '../../src/errors/errors.js';

const change = (overrides: Partial<PairedChange>): PairedChange => ({
  n: 10,
  clusters: 10,
  baselineMedian: 100,
  candidateMedian: 100,
  delta: 0,
  deltaLow: -1,
  deltaHigh: 1,
  relative: 0,
  relativeLow: -0.01,
  relativeHigh: 0.01,
  deltaGateLow: -1,
  relativeGateLow: -0.01,
  logRatioSe: 0.005,
  ...overrides,
});

describe('thresholds and --fail-on', () => {
  it('parses percentages and off', () => {
    expect(parsePercent('20%', 'x')).toBe(0.2);
    expect(parsePercent('20', 'x')).toBe(0.2);
    expect(parsePercent('2.5 %', 'x')).toBe(0.025);
    expect(parsePercent('off', 'x')).toBeNull();
    expect(() => parsePercent('-5%', '--max-latency-regression')).toThrow(UsageError);
    expect(() => parsePercent('fast', '--max-latency-regression')).toThrow(/--max-latency-regression/);
  });

  it('parses the fail-on list', () => {
    expect([...parseFailOn('new-errors, count-changes')]).toEqual(['new-errors', 'count-changes']);
    expect([...parseFailOn('none')]).toEqual([]);
    expect(() => parseFailOn('new-errors,typo')).toThrow(/typo is not one of/);
  });
});

describe('judging a metric', () => {
  it("regressed only when the interval lies above the threshold and the bound at the gate's level above 0", () => {
    expect(judge(change({ relativeLow: 0.21, relativeGateLow: 0.1, relativeHigh: 0.5 }), 0.2, 5)).toBe('regressed');
    expect(judge(change({ relativeLow: 0.19, relativeGateLow: 0.1, relativeHigh: 0.5 }), 0.2, 5)).toBe('unchanged');
    expect(judge(change({ relativeLow: 0.2, relativeGateLow: 0.1, relativeHigh: 0.5 }), 0.2, 5)).toBe('unchanged');
    expect(judge(change({ relativeLow: 0.21, relativeGateLow: -0.01, relativeHigh: 0.5 }), 0.2, 5)).toBe('unchanged');
  });

  it('improved when the interval lies below minus the threshold', () => {
    expect(judge(change({ relativeLow: -0.5, relativeHigh: -0.21 }), 0.2, 5)).toBe('improved');
    expect(judge(change({ relativeLow: -0.5, relativeHigh: -0.1 }), 0.2, 5)).toBe('unchanged');
  });

  it('a threshold that is off judges against 0', () => {
    expect(judge(change({ relativeLow: 0.01, relativeGateLow: 0.005, relativeHigh: 0.02 }), null, 5)).toBe('regressed');
  });

  it('too few pairs is not judged', () => {
    expect(judge(change({ n: 4, relativeGateLow: 0.9, relativeHigh: 1 }), 0.2, 5)).toBe('too few pairs');
    expect(judge(change({ n: 0 }), 0.2, 1)).toBe('too few pairs');
  });

  it('without a relative change (baseline median 0) it judges the absolute interval against 0', () => {
    const abs = { baselineMedian: 0, relative: null, relativeLow: null, relativeHigh: null, relativeGateLow: null };
    expect(judge(change({ ...abs, deltaGateLow: 1, deltaHigh: 2 }), 0.2, 5)).toBe('regressed');
    expect(judge(change({ ...abs, deltaLow: -2, deltaHigh: -1 }), 0.2, 5)).toBe('improved');
    expect(judge(change({ ...abs, deltaLow: -1, deltaHigh: 1 }), 0.2, 5)).toBe('unchanged');
  });
});

describe('the verdict tiers (verdictOf)', () => {
  const gate = (name: string, o: { failed?: boolean; near?: boolean; enabled?: boolean } = {}) => ({ name, enabled: o.enabled ?? true, failed: o.failed ?? false, near: o.near ?? false, detail: '' });
  const none = { firstLookRegressed: [], secondLookRegressed: [], unsettled: [] };

  it('without a second look: a failed gate is regressed, a near one suspect, too little data undecided', () => {
    expect(verdictOf({ gates: [gate('pass-rate', { failed: true })], starved: [] })).toBe('regressed');
    expect(verdictOf({ gates: [gate('pass-rate', { failed: true, enabled: false })], starved: [] })).toBe('unchanged');
    expect(verdictOf({ gates: [gate('new-errors', { near: true })], starved: [] })).toBe('suspect');
    expect(verdictOf({ gates: [gate('new-errors', { near: true })], starved: ['no pair'] })).toBe('undecided');
    expect(verdictOf({ gates: [gate('new-errors')], starved: [] })).toBe('unchanged');
    expect(VERDICT_EXIT_CODE).toEqual({ regressed: 1, suspect: 11, unchanged: 0, undecided: 8 });
  });

  it('with a second look: red only when a look crossed; a flag the budget could not settle is suspect, one it settled unchanged', () => {
    const first = { gates: [gate('pass-rate', { failed: true })], starved: [] };
    expect(verdictOf(first, { ...none, secondLookRegressed: ['pass-rate'] })).toBe('regressed');
    expect(verdictOf(first, { ...none, firstLookRegressed: ['pass-rate'] })).toBe('regressed');
    expect(verdictOf(first, { ...none, unsettled: ['pass-rate'] })).toBe('suspect');
    expect(verdictOf(first, none)).toBe('unchanged');
    expect(verdictLine('suspect', first, { ...none, unsettled: ['pass-rate'] })).toMatch(/^Verdict: SUSPECT \(pass-rate: .*; exit 11/);
    expect(verdictLine('regressed', first)).toContain('dsbench confirm');
  });

  it("points to a second look as the comparison's place allows: dsbench confirm, run again with --confirm, or not at all", () => {
    const red = { gates: [gate('pass-rate', { failed: true })] };
    const near = { gates: [gate('new-errors', { near: true })] };
    const runs = { baseline: 1, candidate: 2 };
    expect(verdictLine('regressed', red, undefined, runs)).toBe('Verdict: REGRESSED (pass-rate); exit 1. Before acting on one night: dsbench confirm 2 --baseline 1');
    expect(verdictLine('suspect', near, undefined, runs)).toBe('Verdict: SUSPECT (new-errors near its limit); exit 11. Settle it with: dsbench confirm 2 --baseline 1');
    expect(verdictLine('regressed', red, undefined, runs, 'rerun')).toMatch(/^Verdict: REGRESSED \(pass-rate\); exit 1\. Before acting on one night, run again with --confirm \(/);
    expect(verdictLine('suspect', near, undefined, runs, 'rerun')).toMatch(/^Verdict: SUSPECT \(new-errors near its limit\); exit 11\. To settle it, run again with --confirm \(/);
    expect(verdictLine('regressed', red, undefined, runs, 'none')).toBe('Verdict: REGRESSED (pass-rate); exit 1');
    expect(verdictLine('suspect', near, undefined, runs, 'none')).toBe('Verdict: SUSPECT (new-errors near its limit); exit 11');
  });
});

describe('splitting one false-alarm rate over the gates', () => {
  it('gives the two default outcome gates alike shares of 5%, a judged metric 1 part', () => {
    const l = gateLevels(DEFAULT_THRESHOLDS, 0.95, ['latency']);
    expect(l.get('pass-rate')).toBeCloseTo((0.05 * 8) / 17, 12);
    expect(l.get('new-errors')).toBeCloseTo((0.05 * 8) / 17, 12);
    expect(l.get('latency regression')).toBeCloseTo(0.05 / 17, 12);
  });

  it('passes a failed gate its level on to the others in proportion (weighted Holm), and stops when none more fails', () => {
    const base = new Map([['a', 0.02], ['b', 0.02], ['c', 0.01]]);
    const p: Record<string, number> = { a: 0.001, b: 0.03, c: 0.5 };
    const levels = passOn(base, ['a', 'b', 'c'], (g, l) => p[g]! < l);
    // a fails at 0.02; b and c are judged at 0.05 / 0.03 of theirs; b fails at 0.0333, c then at 0.05.
    expect(levels.get('a')).toBeCloseTo(0.02, 12);
    expect(levels.get('b')).toBeCloseTo(0.02 * (0.05 / 0.03), 12);
    expect(levels.get('c')).toBeCloseTo(0.05, 12);
    // Nothing fails: every gate keeps its base level.
    expect([...passOn(base, ['a', 'b', 'c'], () => false)]).toEqual([...base]);
  });
});
