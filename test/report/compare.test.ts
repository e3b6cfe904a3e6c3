import { WIDE } from '../helpers/cli-here.js';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CompareArgs, runCompare } from '../../src/cli/compare.js';
import { UsageError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { compareRuns } from '../../src/report/compare/compare.js';
import { DEFAULT_THRESHOLDS } from '../../src/report/compare/gates.js';
import type { TargetInfo } from '../../src/model/run.js';
import { type Store, openStore } from '../../src/store/store.js';
import { type ItemScript, TARGETS, completed, csvObjects, failed, question, recordRun, search, searchRecord, stats, useTempStore } from './fixtures.js';

let dir: string;
let db: string;
let store: Store;
useTempStore((t) => ({ dir, db, store } = t));

const one = (name: string): TargetInfo[] => [{ name, url: `https://${name}.example.com`, api: 'legacy', emulated: false }];
const sink = () => {
  let text = '';
  return { write: (t: string) => (text += t), get text() { return text; } };
};

/** Baseline on `prod`: q0..q5 completed at 1000..1500 ms, a follow-up on q0, and search s1 (10 matches). */
function baselineItems(target = 'prod'): ItemScript[] {
  return [
    ...[0, 1, 2, 3, 4, 5].map((i) => ({
      item: question(`q${i}`, target),
      turns: i === 0 ? [completed({ serverMs: 1000 }), completed({ serverMs: 1000 })] : [completed({ serverMs: 1000 + i * 100 })],
      expectations: [{ name: 'contains', passed: true, reason: 'ok' }],
    })),
    { item: search('s1', target), search: searchRecord() },
  ];
}

describe('compare two runs', () => {
  it('pairs by (question id, repeat, turn) and search id, listing missing and extra items', async () => {
    const b = recordRun(store, [...baselineItems('prod'), { item: question('gone', 'prod'), turns: [completed()] }], { targets: one('prod') });
    const c = recordRun(
      store,
      [
        // q0 lost its follow-up; q1 now fails; q2 is 50% slower with other sources and answer; new item "extra".
        { item: question('q0', 'staging'), turns: [completed({ serverMs: 1000 })], expectations: [{ name: 'contains', passed: true, reason: 'ok' }] },
        { item: question('q1', 'staging'), turns: [failed()], expectations: [{ name: 'contains', passed: false, reason: 'no answer' }] },
        {
          item: question('q2', 'staging'),
          turns: [completed({ serverMs: 1800, answer: 'Retries live in policy.go', sources: [{ type: 'Repository', link: '/github.com/org/repo', label: 'repo' }], credits: 3 })],
          expectations: [{ name: 'contains', passed: true, reason: 'ok' }],
        },
        ...[3, 4, 5].map((i) => ({ item: question(`q${i}`, 'staging'), turns: [completed({ serverMs: 1000 + i * 100 })], expectations: [{ name: 'contains', passed: true, reason: 'ok' }] })),
        { item: question('extra', 'staging'), turns: [completed()] },
        { item: search('s1', 'staging'), search: searchRecord({ matchCount: 12, counted: 12 }) },
      ],
      { targets: one('staging') },
    );
    const result = await compareRuns({ baseline: { db, run: String(b) }, candidate: { db, run: String(c) }, out: path.join(dir, 'cmp') });
    expect(result.byTarget).toBe(false);
    expect(result.baseline.target).toBe('prod');
    expect(result.candidate.target).toBe('staging');
    const rows = csvObjects(path.join(dir, 'cmp', 'compare.csv'));
    expect(rows.map((r) => `${r.kind}:${r.item_id}/${r.repeat}/${r.turn}:${r.pairing}`)).toEqual([
      'question:extra/0/0:candidate_only',
      'question:gone/0/0:baseline_only',
      'question:q0/0/0:paired',
      'question:q0/0/1:baseline_only',
      'question:q1/0/0:paired',
      'question:q2/0/0:paired',
      'question:q3/0/0:paired',
      'question:q4/0/0:paired',
      'question:q5/0/0:paired',
      'search:s1/0/:paired',
    ]);
    const q1 = rows.find((r) => r.item_id === 'q1')!;
    expect(q1).toMatchObject({ state_baseline: 'completed', state_candidate: 'error', state_change: 'new_error', error_code_candidate: 'INTERNAL', comparable: 'false', expect_change: 'new_failure' });
    const q2 = rows.find((r) => r.item_id === 'q2')!;
    // Sources {repo, retry.ts} vs {repo}: 1/2. Latency 1200 -> 1800: +600 ms, +50%.
    expect(q2).toMatchObject({
      target_baseline: 'prod', target_candidate: 'staging', state_change: 'same', comparable: 'true', latency_source: 'server',
      latency_baseline_ms: '1200', latency_candidate_ms: '1800', latency_delta_ms: '600', latency_change: '0.5',
      credits_baseline: '2', credits_candidate: '3', credits_delta: '1', tokens_delta: '0', tool_calls_delta: '0', sources_jaccard: '0.5',
      expect_baseline: 'pass', expect_candidate: 'pass', expect_change: 'same',
    });
    expect(Number(q2.answer_similarity)).toBeGreaterThan(0);
    expect(Number(q2.answer_similarity)).toBeLessThan(1);
    expect(rows.find((r) => r.item_id === 'q3')).toMatchObject({ latency_delta_ms: '0', sources_jaccard: '1', answer_similarity: '1' });
    expect(rows.find((r) => r.kind === 'search')).toMatchObject({ state_change: 'same', count_baseline: '10', count_candidate: '12', count_delta: '2', latency_source: 'duration' });

    const s = result.summary;
    expect(s.questions).toEqual({ paired: 6, baselineOnly: 2, candidateOnly: 1 });
    expect(s.searches).toEqual({ paired: 1, baselineOnly: 0, candidateOnly: 0 });
    expect(s.newErrors.count).toBe(1);
    expect(s.fixedErrors.count).toBe(0);
    expect(s.countChanges.count).toBe(1);
    expect(s.unpaired.count).toBe(3);
    // Pass rate over items with checks on both sides (q0..q5): 6/6 -> 5/6.
    expect(s.passRate).toMatchObject({ items: 6, baselinePassed: 6, candidatePassed: 5 });
    expect(s.passRate.change).toBeCloseTo(-1 / 6, 12);
    expect(s.newFailures.count).toBe(1);
    // Latency over the 5 comparable pairs (q0, q2..q5): baseline 1000 1200 1300 1400 1500 (median 1300),
    // candidate 1000 1800 1300 1400 1500 (median 1400), deltas 0 600 0 0 0 (median 0).
    const latency = s.metrics.find((m) => m.metric === 'latency')!;
    expect(latency).toMatchObject({ n: 5, delta: 0, baselineMedian: 1300, candidateMedian: 1400, judgement: 'unchanged' });
    expect(s.answerSimilarity.n).toBe(5);
    expect(s.sourcesJaccard).toMatchObject({ n: 5, median: 1, mean: 0.9 });
    // Default gates judge rates: one new error in seven items (six questions, a search) is within noise (p = 0.5), so nothing fails,
    // and the lists still name it; the event gates fail on the single event.
    expect(s.outcomes.errorRate).toMatchObject({ n: 7, clusters: 7, baseline: 0, changedItems: 1 });
    expect(s.outcomes.errorRate.test.pUpper).toBeCloseTo(0.5, 12);
    expect(s.gates.find((g) => g.name === 'new-errors')).toMatchObject({ enabled: true, failed: false });
    expect(s.gates.find((g) => g.name === 'new-errors')!.detail).toContain('p = 0.50');
    expect(s.gates.find((g) => g.name === 'count-changes')).toMatchObject({ enabled: false, failed: true });
    expect(s.gates.find((g) => g.name === 'any-new-error')).toMatchObject({ enabled: false, failed: true });
    expect(s.failed).toBe(false);
    const md = fs.readFileSync(path.join(dir, 'cmp', 'compare.md'), 'utf8');
    expect(md).toContain('## dsbench compare: passed');
    expect(md).toContain('`q1` #0 turn 0: completed → error (INTERNAL)');
    expect(md).toContain('`gone` #0 turn 0: only in the baseline');
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'cmp', 'compare.json'), 'utf8')) as { failed: boolean; pairedBy: string[] };
    expect(json.failed).toBe(false);
    expect(json.pairedBy).toEqual(['item_id', 'repeat', 'turn']);
    const strict = await compareRuns({
      baseline: { db, run: String(b) },
      candidate: { db, run: String(c) },
      out: path.join(dir, 'cmp-strict'),
      thresholds: { ...DEFAULT_THRESHOLDS, failOn: new Set(['any-new-error', 'verdict-changes']) },
    });
    expect(strict.summary.gates.filter((g) => g.enabled && g.failed).map((g) => g.name)).toEqual(['any-new-error', 'verdict-changes']);
    expect(fs.readFileSync(path.join(dir, 'cmp-strict', 'compare.md'), 'utf8')).toContain('## dsbench compare: FAILED');
  });

  it('a latency regression beyond the threshold fails; within it passes', async () => {
    const b = recordRun(store, baselineItems(), { targets: one('prod') });
    const slower = baselineItems().map((s) => (s.turns ? { ...s, turns: s.turns.map((t) => ({ ...t, serverMs: t.serverMs! * 1.5 })) } : s));
    const c = recordRun(store, slower, { targets: one('prod') });
    const out = sink();
    const code = await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'a'), format: 'text' }, out, WIDE);
    expect(code).toBe(ExitCode.expectationsFailed);
    expect(out.text).toContain('dsbench compare: FAILED');
    expect(out.text).toMatch(/latency \(server\)\s+7\s.*REGRESSED/);
    expect(out.text).toContain(`Verdict: REGRESSED (latency regression); exit 1. Before acting on one night: dsbench confirm ${c} --baseline ${b}`);
    const relaxed = await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'b'), maxLatencyRegression: '60%' }, sink());
    expect(relaxed).toBe(ExitCode.ok);
    const off = await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'c'), maxLatencyRegression: 'off' }, sink());
    expect(off).toBe(ExitCode.ok);
  });

  it('a rate gate near its limit is suspect (exit 11): five of eight questions newly failing, p = 0.031 against 0.022', async () => {
    const items = (failing: number) =>
      [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({ item: question(`q${i}`, 'prod'), turns: [completed({ serverMs: 1000 + i })], expectations: [{ name: 'contains', passed: i >= failing, reason: 'r' }] }));
    const b = recordRun(store, items(0), { targets: one('prod') });
    const c = recordRun(store, items(5), { targets: one('prod') });
    const out = sink();
    const code = await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'near'), format: 'text' }, out);
    expect(out.text).toContain(`Verdict: SUSPECT (pass-rate near its limit); exit 11. Settle it with: dsbench confirm ${c} --baseline ${b}`);
    expect(code).toBe(ExitCode.suspect);
    const failedOutright = await runCompare({ baseline: String(b), candidate: String(recordRun(store, items(6), { targets: one('prod') })), db, out: path.join(dir, 'far') }, sink());
    expect(failedOutright).toBe(ExitCode.expectationsFailed);
  });

  it('identical runs pass, and results are reproducible', async () => {
    const b = recordRun(store, baselineItems(), { targets: one('prod') });
    const c = recordRun(store, baselineItems(), { targets: one('prod') });
    const first = await compareRuns({ baseline: { db, run: String(b) }, candidate: { db, run: String(c) }, out: path.join(dir, 'one') });
    const second = await compareRuns({ baseline: { db, run: String(b) }, candidate: { db, run: String(c) }, out: path.join(dir, 'two') });
    expect(first.summary.failed).toBe(false);
    expect(first.summary.metrics).toEqual(second.summary.metrics);
    expect(fs.readFileSync(path.join(dir, 'one', 'compare.csv'), 'utf8')).toBe(fs.readFileSync(path.join(dir, 'two', 'compare.csv'), 'utf8'));
    expect(first.summary.unpaired.count).toBe(0);
  });

  it('a metric neither run measured (credits on the versioned API) reads "not measured", not "too few pairs"', async () => {
    const unmeasured = (): ItemScript[] =>
      [0, 1, 2, 3, 4, 5].map((i) => ({ item: question(`q${i}`), turns: [completed({ serverMs: 1000 + i * 100, stats: stats({ timeMillis: 1000 + i * 100, credits: undefined }) })] }));
    const b = recordRun(store, unmeasured(), { targets: one('prod') });
    const c = recordRun(store, unmeasured(), { targets: one('prod') });
    const out = sink();
    expect(await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'a'), format: 'text' }, out, WIDE)).toBe(ExitCode.ok);
    expect(out.text).toMatch(/^credits +0 +0 .* not measured$/m);
    expect(out.text).toContain('  - credits regression: not measured in either run (the API reports none): not judged');
    expect(out.text).toMatch(/^latency \(server\) +6 +6 .* unchanged$/m);
  });

  it('--fail-on chooses the event gates', async () => {
    const b = recordRun(store, baselineItems(), { targets: one('prod') });
    const c = recordRun(store, baselineItems().map((s) => (s.search ? { ...s, search: searchRecord({ matchCount: 11 }) } : s)), { targets: one('prod') });
    expect(await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'x') }, sink())).toBe(ExitCode.ok);
    expect(await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'y'), failOn: 'count-changes' }, sink())).toBe(ExitCode.expectationsFailed);
    expect(await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'z'), failOn: 'none' }, sink())).toBe(ExitCode.ok);
  });

  it('compares runs from two databases (--baseline-db)', async () => {
    const baselineDb = path.join(dir, 'baseline.db');
    const other = openStore(baselineDb);
    recordRun(other, baselineItems(), { targets: one('prod') });
    other.close();
    recordRun(store, baselineItems().map((s) => (s.item.suiteItemId === 'q3' ? { ...s, turns: [failed()] } : s)), { targets: one('prod') });
    const out = sink();
    const code = await runCompare({ baseline: 'latest', candidate: 'latest', baselineDb, db, out: path.join(dir, 'two-dbs'), format: 'json', failOn: 'any-new-error' }, out);
    expect(code).toBe(ExitCode.expectationsFailed);
    const json = JSON.parse(out.text) as { baseline: { db: string }; candidate: { db: string }; summary: { newErrors: { count: number } } };
    expect(json.baseline.db).toBe(baselineDb);
    expect(json.candidate.db).toBe(db);
    expect(json.summary.newErrors.count).toBe(1);
  });

  it('compares two targets of one multi-target run (--targets a,b)', async () => {
    const items = [...baselineItems('prod'), ...baselineItems('staging').map((s) => (s.item.suiteItemId === 'q4' ? { ...s, turns: [failed('TOKEN_LIMIT_EXCEEDED')] } : s))];
    const runId = recordRun(store, items, { targets: TARGETS });
    const result = await compareRuns({ baseline: { db, run: String(runId), target: 'prod' }, candidate: { db, run: String(runId), target: 'staging' }, out: path.join(dir, 't') });
    expect(result.summary.questions.paired).toBe(7);
    expect(result.summary.newErrors.rows.map((r) => `${r.targetBaseline}->${r.targetCandidate}:${r.itemId}:${r.errorCodeCandidate}`)).toEqual(['prod->staging:q4:TOKEN_LIMIT_EXCEEDED']);
    const code = await runCompare({ baseline: String(runId), targets: 'prod,staging', db, out: path.join(dir, 't2'), failOn: 'any-new-error' }, sink());
    expect(code).toBe(ExitCode.expectationsFailed);
  });

  it('pairs multi-target runs target by target when no --targets', async () => {
    const b = recordRun(store, [...baselineItems('prod'), ...baselineItems('staging')], { targets: TARGETS });
    const c = recordRun(store, baselineItems('prod'), { targets: TARGETS });
    const result = await compareRuns({ baseline: { db, run: String(b) }, candidate: { db, run: String(c) }, out: path.join(dir, 'mt') });
    expect(result.byTarget).toBe(true);
    expect(result.summary.questions).toEqual({ paired: 7, baselineOnly: 7, candidateOnly: 0 });
    expect(result.summary.unpaired.rows.every((r) => r.targetBaseline === 'staging')).toBe(true);
  });

  it('a candidate still running: unfinished turns are in progress, unstarted items unpaired', async () => {
    const b = recordRun(store, baselineItems(), { targets: one('prod') });
    const c = recordRun(
      store,
      [
        { item: question('q0'), turns: [completed({ serverMs: 1000 }), { state: 'processing', text: 'f', polls: 1 }], leave: 'running' },
        { item: question('q1'), leave: 'pending' },
      ],
      { targets: one('prod'), status: 'running' },
    );
    const result = await compareRuns({ baseline: { db, run: String(b) }, candidate: { db, run: String(c) }, out: path.join(dir, 'ip') });
    expect(result.summary.stateChanges.in_progress).toBe(1);
    expect(result.summary.newErrors.count).toBe(0);
    expect(result.summary.questions.baselineOnly).toBe(5);
    expect(result.markdown).toContain('is still running');
  });

  it('bad selectors and targets are usage errors naming the database', async () => {
    const b = recordRun(store, baselineItems(), { targets: TARGETS });
    const attempt = (args: Omit<CompareArgs, 'db'>) => runCompare({ ...args, db, out: path.join(dir, 'bad') }, sink());
    await expect(attempt({ baseline: '42', candidate: 'latest' })).rejects.toThrow(`no run 42 in ${db}; dsbench runs --db ${db} lists the runs.`);
    await expect(attempt({ baseline: 'latest', candidate: 'latest' })).rejects.toThrow(/same run/);
    await expect(attempt({ baseline: 'latest' })).rejects.toThrow(/give a baseline and a candidate/);
    await expect(attempt({ baseline: String(b), targets: 'prod,nope' })).rejects.toThrow(/has no target nope; its targets: prod, staging/);
    await expect(attempt({ baseline: String(b), targets: 'prod' })).rejects.toThrow(/two target names/);
    await expect(attempt({ baseline: 'latest', candidate: 'latest', baselineDb: path.join(dir, 'missing.db') })).rejects.toThrow(/no results database at .*missing\.db/);
    await expect(attempt({ baseline: 'latest', candidate: 'latest', maxCreditsRegression: 'lots' })).rejects.toThrow(UsageError);
    expect(DEFAULT_THRESHOLDS.failOn.has('new-errors')).toBe(true);
  });
});

describe('a comparison cannot pass on nothing', () => {
  it('runs of different suites pair nothing: exit 8, saying what was compared and why nothing paired', async () => {
    const b = recordRun(store, baselineItems(), { targets: one('prod') });
    const other = baselineItems().map((s) => ({ ...s, item: { ...s.item, key: s.item.key.replace('/q', '/other-q').replace('/s1', '/other-s1'), suiteItemId: `other-${s.item.suiteItemId}` } }));
    const c = recordRun(store, other, { targets: one('prod'), info: { suiteName: 'nightly' } });
    const out = sink();
    const error = await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'n'), format: 'json' }, out).then(
      () => undefined,
      (e: unknown) => e as { exitCode: number; message: string },
    );
    expect(error?.exitCode).toBe(ExitCode.nothingCompared);
    expect(error?.message).toContain(`compared run ${b} (suite smoke, target prod) with run ${c} (suite nightly, target prod)`);
    expect(error?.message).toContain('paired 0 question turns and 0 searches (8 only in the baseline, 8 only in the candidate)');
    expect(error?.message).toContain('different suites (smoke and nightly)');
    // The comparison is still printed and written, and says it judged nothing.
    expect(JSON.parse(out.text)).toMatchObject({ failed: false, nothingCompared: error?.message, summary: { starved: ['no question turn or search paired'] } });
    expect(fs.readFileSync(path.join(dir, 'n', 'compare.md'), 'utf8')).toContain('NOTHING TO JUDGE');
  });

  it('a run that recorded nothing pairs nothing: exit 8, naming it', async () => {
    const b = recordRun(store, baselineItems(), { targets: one('prod') });
    const c = recordRun(store, baselineItems().map((s) => ({ ...s, leave: 'pending' as const })), { targets: one('prod'), status: 'aborted' });
    await expect(runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'e') }, sink())).rejects.toThrow(
      new RegExp(`run ${c} recorded no question turn or search`),
    );
  });

  it('a gated metric with fewer pairs than --min-pairs fails with exit 8, until --min-pairs or the gate allows it', async () => {
    const few = baselineItems().slice(1, 4);
    const b = recordRun(store, few, { targets: one('prod') });
    const c = recordRun(store, few, { targets: one('prod') });
    await expect(runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'f') }, sink())).rejects.toMatchObject({
      exitCode: ExitCode.nothingCompared,
      message: expect.stringContaining('latency regression: 3 comparable question pairs, fewer than --min-pairs 5'),
    });
    expect(await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'g'), minPairs: 3 }, sink())).toBe(ExitCode.ok);
    const gatesOff = { maxLatencyRegression: 'off', maxCreditsRegression: 'off' };
    expect(await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'h'), ...gatesOff }, sink())).toBe(ExitCode.ok);
  });
});
