import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TurnRecord } from '../../src/model/item.js';
import { compareRuns } from '../../src/report/compare/compare.js';
import { DEFAULT_THRESHOLDS, parseFailOn } from '../../src/report/compare/gates.js';
import { exposition } from '../../src/report/push-metrics.js';
import { writeReport } from '../../src/report/report.js';
import { collectRunMetrics } from '../../src/report/run-metrics.js';
import { openStore, type Store } from '../../src/store/store.js';
import { completed, csvObjects, failed, question, recordRun, stats, useTempStore } from './fixtures.js';

// The output-limit failure told apart as the instance's dashboards tell it: `truncated` (some answer text)
// and `truncated-no-answer` (none), and failures that were billed, in every output.

let dir: string;
let db: string;
let store: Store;
useTempStore((t) => ({ dir, db, store } = t));

const LIMIT = 'This response exceeded the maximum output length. Ask a follow-up question like "continue" to see more.';

/** A turn stopped by the output limit, with the answer written so far (or none) and the credits it was billed. */
function truncated(answer: string | undefined, credits = 3): TurnRecord {
  const t = failed('INTERNAL', LIMIT);
  return {
    ...t,
    error: { code: answer ? 'TRUNCATED' : 'TRUNCATED_NO_ANSWER', rawCode: 'InternalError', message: LIMIT },
    ...(answer !== undefined && { answer }),
    stats: stats({ credits, timeMillis: 200 }),
  };
}

const one = [{ name: 'prod', url: 'https://prod.example.com', api: 'legacy' as const, emulated: false }];
const ids = Array.from({ length: 12 }, (_, i) => `q${i}`);

describe('truncated and truncated-no-answer', () => {
  it('are counted apart in summary.csv, the run metrics, the Pushgateway text and JUnit; billed failures apart from answers', async () => {
    const runId = recordRun(
      store,
      [
        { item: question('q0'), turns: [completed({ credits: 5 })] },
        { item: question('q1'), turns: [truncated('The retry policy lives in')], expectations: [{ name: 'contains', passed: false, reason: 'no retry.ts' }] },
        { item: question('q2'), turns: [truncated(undefined, 4)], expectations: [{ name: 'contains', passed: false, reason: 'no answer' }] },
        { item: question('q3'), turns: [failed()] },
      ],
      { targets: one },
    );
    const junit = path.join(dir, 'junit.xml');
    await writeReport({ db, run: 'latest', out: path.join(dir, 'out'), formats: new Set(['csv', 'md']), junit });
    const row = csvObjects(path.join(dir, 'out', 'summary.csv')).find((r) => r.scope === 'target')!;
    expect(row).toMatchObject({ errors_truncated: '1', errors_truncated_no_answer: '1', errors_internal: '1', billed_failures: '2', billed_failure_credits: '7' });
    expect(fs.readFileSync(path.join(dir, 'out', 'report.md'), 'utf8')).toContain('2 failed turns billed 7 credits');
    const xml = fs.readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<failure type="truncated" message="truncated: contains: no retry.ts"/);
    expect(xml).toMatch(/<failure type="truncated-no-answer" message="truncated-no-answer: contains: no answer"/);

    const reader = openStore(db);
    try {
      const [all] = collectRunMetrics(reader.db, runId);
      expect(all).toMatchObject({ truncated: 1, truncatedNoAnswer: 1, billedFailures: { turns: 2, credits: 7 } });
      const text = exposition({ id: runId }, [all!], []);
      expect(text).toContain(`dsbench_turns_truncated{target="all",run="${runId}"} 1`);
      expect(text).toContain(`dsbench_turns_truncated_no_answer{target="all",run="${runId}"} 1`);
      expect(text).toContain(`dsbench_billed_failure_credits{target="all",run="${runId}"} 7`);
    } finally {
      reader.close();
    }
  });

  it('--fail-on truncated-no-answer fails when that rate rose beyond noise over questions, not on truncations with text', async () => {
    const base = recordRun(store, ids.map((id) => ({ item: question(id), turns: [completed()] })), { targets: one });
    // 8 of 12 questions now stop before any answer text: one-sided exact McNemar p = 2^-8.
    const noAnswer = recordRun(store, ids.map((id, i) => ({ item: question(id), turns: [i < 8 ? truncated(undefined) : completed()] })), { targets: one });
    const withText = recordRun(store, ids.map((id, i) => ({ item: question(id), turns: [i < 8 ? truncated('The retry policy') : completed()] })), { targets: one });
    const thresholds = { ...DEFAULT_THRESHOLDS, failOn: parseFailOn('truncated-no-answer') };
    const gate = async (candidate: number, out: string) => {
      const r = await compareRuns({ baseline: { db, run: String(base) }, candidate: { db, run: String(candidate) }, out: path.join(dir, out), thresholds });
      return { summary: r.summary, gate: r.summary.gates.find((g) => g.name === 'truncated-no-answer')! };
    };
    const rose = await gate(noAnswer, 'a');
    expect(rose.gate).toMatchObject({ enabled: true, failed: true });
    expect(rose.summary.outcomes.truncatedNoAnswerRate).toMatchObject({ n: 12, baseline: 0 });
    expect(rose.summary.outcomes.truncatedNoAnswerRate.candidate).toBeCloseTo(8 / 12, 12);
    expect(rose.summary.outcomes.truncatedRate.candidate).toBe(0);
    expect(rose.summary.failed).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'a', 'compare.md'), 'utf8')).toMatch(/truncated-no-answer rate/);
    const text = await gate(withText, 'b');
    expect(text.gate).toMatchObject({ enabled: true, failed: false });
    expect(text.summary.outcomes.truncatedRate.candidate).toBeCloseTo(8 / 12, 12);
    expect(text.summary.failed).toBe(false);
  });
});
