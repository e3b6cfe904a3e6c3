import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { detectChanges } from '../../src/report/change-detection.js';
import { collectSeries, historyNights } from '../../src/report/history-series.js';
import { mulberry32 } from '../../src/random.js';
import type { Store } from '../../src/store/store.js';
import { useTempStore, type TempStore } from './fixtures.js';

// The nightly series `report --history N --detect` reads, pinned on a fixed database: the same series and,
// for the same seed, the same change points as the reader gave before it was made faster (three per-question
// ones named on other nights since branch h-drop's placement of a change found at the newest end). Since
// each segment's test draws from a generator of its own (the end test stops early), three later splits'
// p-values moved within the permutation noise and q20's second pass-rate split is on night 13, not 11. Since
// an item that erred is out of the pass rate (it counts once, in the error rate), the pass-rate splits of the
// fixture's drop from night 8 have smaller p-values, and a few pass-rate splits moved or came.

let t: TempStore;
useTempStore((x) => (t = x));

/** 16 nights x 30 questions x 2 repeats and a search a night; uneven turns, checks, errors, credits; slower from night 11. */
function recordFixedNights(store: Store): number[] {
  const db = store.db;
  const random = mulberry32(17);
  const ins = {
    run: db.prepare(`INSERT INTO runs (label, suite_name, suite_path, suite_hash, dsbench_version, options_json, started_at, ended_at, status)
      VALUES ('nightly', 'fixed', 'suites/fixed.yaml', '${'cd'.repeat(32)}', '0.1.0', '{}', ?, ?, 'completed')`),
    target: db.prepare(`INSERT INTO targets (run_id, name, url, api, emulated) VALUES (?, ?, 'https://x.example.com', 'versioned', 0)`),
    item: db.prepare(`INSERT INTO items (run_id, key, position, kind, target, suite_item_id, repeat, tags_json, status, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    turn: db.prepare(`INSERT INTO turns (run_id, item_key, turn, text, state, server_ms, server_ms_source, wall_ms, polls, total_tokens, credits)
      VALUES (?, ?, ?, 'Q?', ?, ?, 'stats.time_millis', ?, 1, ?, ?)`),
    check: db.prepare(`INSERT INTO expectations (run_id, item_key, position, name, passed, reason) VALUES (?, ?, ?, 'contains', ?, 'checked')`),
  };
  const runs: number[] = [];
  db.transaction(() => {
    for (let n = 0; n < 16; n++) {
      const day = Date.parse('2026-02-01T03:00:00.000Z') + n * 86_400_000;
      const runId = Number(ins.run.run(new Date(day).toISOString(), new Date(day + 3_600_000).toISOString()).lastInsertRowid);
      runs.push(runId);
      for (const target of ['prod', 'staging']) ins.target.run(runId, target);
      let position = 0;
      for (const target of ['prod', 'staging']) {
        for (let q = 0; q < 30; q++) {
          for (let r = 0; r < 2; r++) {
            const key = `${target}/question/q${q}/${r}`;
            const error = random() < 0.08;
            const status = n === 15 && q === 0 ? 'pending' : 'done';
            ins.item.run(runId, key, position++, 'question', target, `q${q}`, r, JSON.stringify(['all', `g${q % 3}`, ...(q % 4 === 0 ? ['slow'] : [])]), status, error ? 'error' : 'completed');
            const turns = 1 + (q % 3 === 1 ? 1 : 0);
            for (let turn = 0; turn < turns; turn++) {
              const ms = (n >= 11 && target === 'prod' ? 1.3 : 1) * 90_000 * Math.exp(0.3 * (random() - 0.5)) + random();
              const serverMs = q % 7 === 3 ? null : ms;
              ins.turn.run(runId, key, turn, error && turn === 0 ? 'error' : 'completed', serverMs, ms + 512.25 * random(), q % 5 === 2 ? null : 1000 + Math.floor(900 * random()), q % 6 === 5 ? null : 0.1 * Math.floor(1 + 40 * random()) + 0.05 * turn);
            }
            for (let c = 0; c < q % 3; c++) ins.check.run(runId, key, c, !error && random() < (n >= 8 && q % 2 === 0 ? 0.55 : 0.9) ? 1 : 0);
          }
        }
        ins.item.run(runId, `${target}/search/s1/0`, position++, 'search', target, 's1', 0, '["all"]', 'done', n % 5 === 0 ? 'timeout' : 'completed');
      }
    }
  })();
  return runs;
}

describe('nightly series', () => {
  it("counts in the error rate only the errors the suite did not expect, and an error once: not in the pass rate too", () => {
    const db = t.store.db;
    const runs: number[] = [];
    for (let n = 0; n < 2; n++) {
      const runId = Number(db.prepare(`INSERT INTO runs (label, suite_name, suite_path, suite_hash, dsbench_version, options_json, started_at, ended_at, status)
        VALUES ('nightly', 'x', 'x.yaml', '${'cd'.repeat(32)}', '0.1.0', '{}', ?, ?, 'completed')`).run(`2026-02-0${n + 1}T03:00:00.000Z`, `2026-02-0${n + 1}T04:00:00.000Z`).lastInsertRowid);
      runs.push(runId);
      db.prepare(`INSERT INTO targets (run_id, name, url, api, emulated) VALUES (?, 'prod', 'https://x.example.com', 'versioned', 0)`).run(runId);
      // Night 1: q0 ends in the error its check expects (the check holds), q1 in an error nothing expected.
      for (let q = 0; q < 4; q++) {
        const key = `prod/question/q${q}/0`;
        const outcome = n === 1 && q < 2 ? 'error' : 'completed';
        db.prepare(`INSERT INTO items (run_id, key, position, kind, target, suite_item_id, repeat, tags_json, status, outcome) VALUES (?, ?, ?, 'question', 'prod', ?, 0, '[]', 'done', ?)`).run(runId, key, q, `q${q}`, outcome);
        db.prepare(`INSERT INTO turns (run_id, item_key, turn, text, state, wall_ms, polls) VALUES (?, ?, 0, 'Q?', ?, 1000, 1)`).run(runId, key, outcome);
        if (q === 0) db.prepare(`INSERT INTO expectations (run_id, item_key, position, name, passed, reason) VALUES (?, ?, 0, 'error', 1, 'checked')`).run(runId, key);
        // q1's check fails with its error; q2's holds.
        if (q === 1 || q === 2) db.prepare(`INSERT INTO expectations (run_id, item_key, position, name, passed, reason) VALUES (?, ?, 0, 'contains', ?, 'checked')`).run(runId, key, outcome === 'error' ? 0 : 1);
      }
    }
    const nights = historyNights(db, runs.map((id, i) => ({ id, startedAt: `2026-02-0${i + 1}` })));
    const series = collectSeries(db, nights, { questions: true });
    const rate = (name: string | null) => series.find((s) => s.metric === 'error rate' && s.scope.name === name)!.values;
    expect(rate(null)).toEqual([0, 0.25]);
    expect(rate('q0')).toEqual([0, 0]);
    expect(rate('q1')).toEqual([0, 1]);
    const passRate = (name: string | null) => series.find((s) => s.metric === 'pass rate' && s.scope.name === name)!.values;
    expect(passRate(null)).toEqual([1, 1]);
    expect(passRate('q1')).toEqual([1, null]);
  });

  it('the same series and, for the same seed, the same change points as before the faster reader', () => {
    const runs = recordFixedNights(t.store);
    const nights = historyNights(t.store.db, runs.map((id, i) => ({ id, startedAt: `2026-02-${String(i + 1).padStart(2, '0')}` })));
    for (const questions of [false, true]) {
      const series = collectSeries(t.store.db, nights, { questions });
      const detection = detectChanges(nights, series, 7);
      const digest = (x: unknown) => createHash('sha256').update(JSON.stringify(x)).digest('hex').slice(0, 16);
      const found = detection.changes.map((c) => `${c.scope.target} ${c.scope.kind} ${c.scope.name} ${c.metric} night ${c.night} p ${c.p}`);
      expect({ series: series.length, seriesDigest: digest(series), found, changesDigest: digest(detection.changes) }).toEqual(questions ? PINNED.questions : PINNED.suite);
    }
  });
});

// The change points moved on purpose (branch h-weights): the newest-end test's creep weighs 0.5, not 1, so
// p-values at the newest end moved by a shuffle or two, and two credits splits of tag slow now sit at p 0.05.
const PINNED = {
  suite: {
    series: 60,
    seriesDigest: 'c67c5dcffaecfd7a',
    found: [
      'prod suite null pass rate night 8 p 0.005',
      'prod suite null latency p50 night 11 p 0.005',
      'prod suite null latency p90 night 11 p 0.005',
      'prod suite null tokens night 12 p 0.03',
      'prod tag g0 latency p50 night 11 p 0.005',
      'prod tag g0 latency p90 night 11 p 0.005',
      'prod tag g0 tokens night 12 p 0.02',
      'prod tag g1 pass rate night 13 p 0.005',
      'prod tag g1 latency p50 night 11 p 0.01',
      'prod tag g1 latency p90 night 11 p 0.005',
      'prod tag g2 pass rate night 8 p 0.01',
      'prod tag g2 latency p50 night 11 p 0.01',
      'prod tag g2 latency p90 night 11 p 0.01',
      'prod tag slow pass rate night 8 p 0.01',
      'prod tag slow latency p50 night 11 p 0.005',
      'prod tag slow latency p90 night 11 p 0.005',
      'prod tag slow credits night 5 p 0.05',
      'prod tag slow credits night 15 p 0.05',
      'prod tag slow tokens night 14 p 0.05',
      'staging suite null pass rate night 8 p 0.005',
      'staging tag g1 pass rate night 6 p 0.015',
      'staging tag g2 pass rate night 8 p 0.01',
      'staging tag slow pass rate night 6 p 0.05',
    ],
    changesDigest: '297a80a9dd3a9fa8',
  },
  questions: {
    series: 432,
    seriesDigest: '7b03540962bd80a2',
    found: [
      'prod suite null pass rate night 8 p 0.005',
      'prod suite null latency p50 night 11 p 0.005',
      'prod suite null latency p90 night 11 p 0.005',
      'prod suite null tokens night 12 p 0.03',
      'prod tag g0 latency p50 night 11 p 0.005',
      'prod tag g0 latency p90 night 11 p 0.005',
      'prod tag g0 tokens night 12 p 0.02',
      'prod tag g1 pass rate night 13 p 0.005',
      'prod tag g1 latency p50 night 11 p 0.01',
      'prod tag g1 latency p90 night 11 p 0.005',
      'prod tag g2 pass rate night 8 p 0.01',
      'prod tag g2 latency p50 night 11 p 0.01',
      'prod tag g2 latency p90 night 11 p 0.01',
      'prod tag slow pass rate night 8 p 0.01',
      'prod tag slow latency p50 night 11 p 0.005',
      'prod tag slow latency p90 night 11 p 0.005',
      'prod tag slow credits night 5 p 0.05',
      'prod tag slow credits night 15 p 0.05',
      'prod tag slow tokens night 14 p 0.05',
      'prod question q0 latency p50 night 11 p 0.005',
      'prod question q0 latency p90 night 11 p 0.005',
      'prod question q1 latency p50 night 11 p 0.02',
      'prod question q1 latency p90 night 11 p 0.03',
      'prod question q10 pass rate night 14 p 0.02',
      'prod question q10 latency p50 night 11 p 0.02',
      'prod question q10 latency p90 night 11 p 0.03',
      'prod question q11 latency p50 night 11 p 0.01',
      'prod question q11 latency p90 night 11 p 0.02',
      'prod question q12 latency p50 night 11 p 0.01',
      'prod question q12 latency p90 night 11 p 0.02',
      'prod question q13 latency p50 night 11 p 0.005',
      'prod question q13 latency p90 night 8 p 0.015',
      'prod question q13 latency p90 night 11 p 0.005',
      'prod question q14 error rate night 15 p 0.045',
      'prod question q14 latency p50 night 11 p 0.01',
      'prod question q14 latency p90 night 11 p 0.005',
      'prod question q15 latency p50 night 11 p 0.005',
      'prod question q15 latency p90 night 11 p 0.015',
      'prod question q16 latency p50 night 11 p 0.005',
      'prod question q16 latency p90 night 11 p 0.01',
      'prod question q17 latency p50 night 11 p 0.005',
      'prod question q17 latency p90 night 11 p 0.01',
      'prod question q18 latency p50 night 11 p 0.005',
      'prod question q18 latency p90 night 11 p 0.005',
      'prod question q18 tokens night 12 p 0.015',
      'prod question q19 latency p50 night 10 p 0.025',
      'prod question q19 latency p90 night 11 p 0.03',
      'prod question q2 latency p50 night 11 p 0.005',
      'prod question q2 latency p90 night 12 p 0.01',
      'prod question q20 pass rate night 13 p 0.005',
      'prod question q20 latency p50 night 11 p 0.015',
      'prod question q20 latency p90 night 11 p 0.015',
      'prod question q21 latency p50 night 11 p 0.005',
      'prod question q21 latency p90 night 9 p 0.005',
      'prod question q22 latency p50 night 11 p 0.005',
      'prod question q22 latency p90 night 11 p 0.005',
      'prod question q23 latency p50 night 11 p 0.015',
      'prod question q23 latency p90 night 11 p 0.01',
      'prod question q24 latency p50 night 11 p 0.01',
      'prod question q24 latency p90 night 11 p 0.005',
      'prod question q25 latency p50 night 11 p 0.015',
      'prod question q25 latency p90 night 11 p 0.01',
      'prod question q26 latency p50 night 11 p 0.005',
      'prod question q26 latency p90 night 11 p 0.005',
      'prod question q27 latency p50 night 11 p 0.005',
      'prod question q27 latency p90 night 11 p 0.005',
      'prod question q28 latency p50 night 11 p 0.015',
      'prod question q28 latency p90 night 11 p 0.02',
      'prod question q29 latency p50 night 11 p 0.01',
      'prod question q29 latency p90 night 11 p 0.015',
      'prod question q3 error rate night 14 p 0.015',
      'prod question q3 latency p50 night 11 p 0.005',
      'prod question q3 latency p90 night 11 p 0.04',
      'prod question q4 pass rate night 9 p 0.005',
      'prod question q4 latency p50 night 11 p 0.01',
      'prod question q4 latency p90 night 11 p 0.01',
      'prod question q5 latency p50 night 11 p 0.005',
      'prod question q5 latency p90 night 11 p 0.005',
      'prod question q5 tokens night 12 p 0.035',
      'prod question q6 latency p50 night 11 p 0.025',
      'prod question q6 latency p90 night 11 p 0.015',
      'prod question q7 latency p50 night 11 p 0.01',
      'prod question q7 latency p90 night 11 p 0.005',
      'prod question q8 pass rate night 10 p 0.01',
      'prod question q8 latency p50 night 11 p 0.005',
      'prod question q8 latency p90 night 11 p 0.015',
      'prod question q9 latency p50 night 11 p 0.01',
      'prod question q9 latency p90 night 11 p 0.005',
      'staging suite null pass rate night 8 p 0.005',
      'staging tag g1 pass rate night 6 p 0.015',
      'staging tag g2 pass rate night 8 p 0.01',
      'staging tag slow pass rate night 6 p 0.05',
      'staging question q10 pass rate night 13 p 0.025',
      'staging question q11 tokens night 15 p 0.03',
      'staging question q13 latency p50 night 12 p 0.045',
      'staging question q13 latency p90 night 12 p 0.01',
      'staging question q14 pass rate night 8 p 0.01',
      'staging question q16 credits night 13 p 0.01',
      'staging question q17 pass rate night 12 p 0.015',
      'staging question q19 latency p90 night 13 p 0.005',
      'staging question q2 pass rate night 6 p 0.03',
      'staging question q21 tokens night 6 p 0.025',
      'staging question q21 tokens night 12 p 0.045',
      'staging question q23 error rate night 14 p 0.01',
      'staging question q26 pass rate night 10 p 0.03',
      'staging question q26 latency p50 night 14 p 0.015',
      'staging question q26 latency p90 night 14 p 0.05',
      'staging question q28 pass rate night 11 p 0.025',
      'staging question q28 latency p90 night 14 p 0.045',
      'staging question q4 pass rate night 8 p 0.03',
    ],
    changesDigest: '94c122688a7d5198',
  },
};
