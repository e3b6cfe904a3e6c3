// dsbench confirm's decision on recorded nights (confirmRun, docs/statistics.md "A second look"): the first
// look tests every statistical gate by its strict test whatever the plain gates said, and a rate gate near at
// that look takes the second look, re-asking on the run's own target. Nights of 12 questions against a
// baseline of 6 repeats (a release run blessed once), where the plain gates pair repeat with repeat.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ConfirmOptions, confirmRun } from '../../src/cli/confirm-run.js';
import { connectionFor } from '../../src/config/credentials.js';
import { loadSuite } from '../../src/config/load-suite.js';
import { DEFAULT_THRESHOLDS } from '../../src/report/compare/gates.js';
import type { TargetInfo } from '../../src/model/run.js';
import { DEFAULT_BOOTSTRAP } from '../../src/stats/bootstrap.js';
import { confirmationsOf } from '../../src/store/confirmations.js';
import { storedItems } from '../../src/store/queries.js';
import type { Store } from '../../src/store/store.js';
import { checkedNight, recordRun, useTempStore } from '../report/fixtures.js';
import { cleanup, emulator, FAST, op } from '../runner/fixtures/harness.js';
import { confirmDocument } from '../../src/cli/confirm.js';
import { renderText } from '../../src/report/document.js';

afterAll(cleanup);

let dir: string;
let db: string;
let store: Store;
useTempStore((t) => ({ dir, db, store } = t));

const QUESTIONS = 12;
const one: TargetInfo[] = [{ name: 'prod', url: 'https://prod.example.com', api: 'legacy', emulated: false }];
const NEVER = new AbortController().signal;

/** The nights here: QUESTIONS questions x `repeats`, each with a check; `erring` ids end in an error. */
const night = (repeats: number, erring?: ReadonlySet<number>) => checkedNight(QUESTIONS, repeats, erring);

/** The suite the nights were asked from, so that a confirmation can re-ask its questions. */
async function suiteInfo(): Promise<{ suitePath: string; suiteHash: string }> {
  const file = path.join(dir, 'suite.yaml');
  const questions = Array.from({ length: QUESTIONS }, (_, i) => `  - id: q${String(i).padStart(2, '0')}\n    question: "Where is handler${i} implemented?"`);
  writeFileSync(file, `name: smoke\ndefaults: { api: legacy, repeats: 2, concurrency: 4, poll: { strategy: fixed, interval: 30ms, min: 10ms } }\nquestions:\n${questions.join('\n')}\n`);
  return { suitePath: file, suiteHash: (await loadSuite(file)).sha256 };
}

function confirm(baseline: number, candidate: number, budget: ConfirmOptions['budget'], bind: ConfirmOptions['bind'] = () => [], reporter: ConfirmOptions['reporter'] = { log: () => undefined, onEvent: () => undefined }, stop = NEVER) {
  return confirmRun({
    db, run: String(candidate), baseline: { db, run: String(baseline) }, budget, alpha: 0.01, thresholds: DEFAULT_THRESHOLDS, bootstrap: DEFAULT_BOOTSTRAP,
    out: path.join(dir, 'confirm'), bind, reporter, stop, abort: NEVER, retry: { baseDelayMs: 1, maxDelayMs: 20 },
  });
}

describe('confirm: which gates the first look tests', () => {
  it('is red at the first look on a gate the plain comparison did not even flag: the strict test counts the baseline\'s extra repeats', async () => {
    const b = recordRun(store, night(6), { targets: one });
    const c = recordRun(store, night(2, new Set([0, 1, 2, 3])), { targets: one });
    const r = await confirm(b, c, { share: 0.1 });
    // The plain gate pairs repeat with repeat: four questions that went to errors, p = 1/16, not near its 2.35%.
    const plain = r.first.summary.gates.find((g) => g.name === 'new-errors')!;
    expect(plain.p).toBeCloseTo(1 / 16, 10);
    expect(plain.failed || plain.near).toBe(false);
    expect(r.first.verdict).toBe('unchanged');
    // Each question's 2 errors among its 8 items, both on the night's side: (1/28)^4, far below the first look's share.
    expect(r.firstLooks.map((l) => l.gate)).toEqual(expect.arrayContaining(['new-errors', 'pass-rate']));
    expect(r.firstLooks.find((l) => l.gate === 'new-errors')!.p).toBeCloseTo((1 / 28) ** 4, 12);
    expect(r.verdict).toBe('regressed');
    expect(r.second?.firstLookRegressed).toEqual(['new-errors']);
    expect(r.confirmRunId).toBeNull();
  });

  it('takes the second look when the strict first look comes near, though the plain gate is far from it', async () => {
    const asked = await suiteInfo();
    const b = recordRun(store, night(6), { targets: one, info: asked });
    const c = recordRun(store, night(2, new Set([0])), { targets: one, info: asked });
    const instance = await emulator(FAST);
    const r = await confirm(b, c, { items: 4 }, () => [{ name: 'prod', connection: connectionFor(instance.url, instance.adminToken, {}), emulated: false, timeScale: 1 }]);
    expect(r.first.summary.gates.find((g) => g.name === 'new-errors')!.p).toBeCloseTo(1 / 2, 10);
    expect(r.first.verdict).toBe('unchanged');
    // One question's 2 errors among 8 items, both the night's: 1/28, above the first look's share of 1%
    // but below twice the plain level (2 x 2.35%): a second look, re-asking that question.
    const look = r.firstLooks.find((l) => l.gate === 'new-errors')!;
    expect(look.p).toBeCloseTo(1 / 28, 10);
    expect(look.p!).toBeGreaterThan(look.level);
    expect(look.calls).toBe(true);
    expect(r.flagged).toEqual(['new-errors']);
    expect(r.confirmRunId).not.toBeNull();
    expect(r.reasked).toMatchObject({ questions: ['prod/q00'], repeats: 4, questionRepeats: [4], items: 4 });
    // The quiet instance answers all four: 2 errors among 12 items, both the night's, 15/66: settled unchanged.
    expect(r.looks.find((l) => l.gate === 'new-errors')!.p).toBeCloseTo(15 / 66, 10);
    expect(r.verdict).toBe('unchanged');
  }, 60_000);

  it('asks nothing where nothing changed', async () => {
    const b = recordRun(store, night(6, new Set([5])), { targets: one });
    const c = recordRun(store, night(2, new Set([5])), { targets: one });
    const r = await confirm(b, c, { share: 0.1 });
    expect(r.firstLooks.every((l) => !l.crossed && !l.calls)).toBe(true);
    expect(r.flagged).toEqual([]);
    expect(r.second).toBeNull();
    expect(r.confirmRunId).toBeNull();
    expect(r.verdict).toBe('unchanged');
  });
});

describe('confirm: the budget spent whole, resumed as recorded', () => {
  // Two questions went to errors on both repeats against a 6-repeat baseline: (1/28)^2 = 0.0013, above the
  // first look's share of 1% once the budget is 9 items or more (t = 24/33), near enough for the second look.
  async function interrupted(budget: number) {
    const asked = await suiteInfo();
    const b = recordRun(store, night(6), { targets: one, info: asked });
    const c = recordRun(store, night(2, new Set([0, 1])), { targets: one, info: asked });
    const instance = await emulator(FAST);
    const bind: ConfirmOptions['bind'] = () => [{ name: 'prod', connection: connectionFor(instance.url, instance.adminToken, {}), emulated: false, timeScale: 1 }];
    const stop = new AbortController();
    // Stopped once the first re-asked item has ended: the others in flight end, the rest are left.
    const first = await confirm(b, c, { items: budget }, bind, { log: () => undefined, onEvent: (e) => e.type === 'item-ended' && stop.abort() }, stop.signal);
    expect(first.interrupted).toBe(true);
    const confirmRunId = first.confirmRunId!;
    const done = storedItems(store.db, confirmRunId).filter((i) => i.itemStatus === 'done').length;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(budget);
    return { b, c, instance, bind, confirmRunId, creates: () => instance.counters()[op('legacy', 'create')] ?? 0 };
  }

  /** Each re-asked question's items in the confirmation run, by question id. */
  const perQuestion = (confirmRunId: number): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const i of storedItems(store.db, confirmRunId)) out[i.suiteItemId] = (out[i.suiteItemId] ?? 0) + 1;
    return out;
  };

  it('a budget of 9 over 2 questions asks 5 and 4, every item once across a stop and a resume', async () => {
    const { b, c, bind, confirmRunId, creates } = await interrupted(9);
    expect(confirmationsOf(store.db, c)[0]!.record).toMatchObject({ questions: ['prod\u0000question\u0000q00', 'prod\u0000question\u0000q01'], repeats: 5, questionRepeats: [5, 4], budget: 9 });
    const r = await confirm(b, c, { items: 9 }, bind);
    expect(r.interrupted).toBe(false);
    expect(r.confirmRunId).toBe(confirmRunId);
    expect(r.reasked).toMatchObject({ questions: ['prod/q00', 'prod/q01'], repeats: 5, questionRepeats: [5, 4], items: 9, budget: 9 });
    expect(perQuestion(confirmRunId)).toEqual({ q00: 5, q01: 4 });
    expect(storedItems(store.db, confirmRunId).every((i) => i.itemStatus === 'done')).toBe(true);
    // Asked once each on the instance, across the stop.
    expect(creates()).toBe(9);
    expect(renderText(confirmDocument(r), 10_000)).toContain('1 question x 5 repeats and 1 x 4 repeats, 9 items of a budget of 9');
  }, 60_000);

  it('a confirmation recorded before questions could differ (repeats only) resumes as it was planned', async () => {
    const { b, c, bind, confirmRunId, creates } = await interrupted(10);
    // What a confirmation of 2 questions x 5 repeats recorded then: no questionRepeats.
    const { questionRepeats, ...old } = confirmationsOf(store.db, c)[0]!.record!;
    expect(questionRepeats).toEqual([5, 5]);
    store.db.prepare('UPDATE runs SET confirm_json = ? WHERE id = ?').run(JSON.stringify(old), confirmRunId);
    expect(confirmationsOf(store.db, c)[0]!.record).toEqual(old);
    const r = await confirm(b, c, { items: 10 }, bind);
    expect(r.confirmRunId).toBe(confirmRunId);
    expect(r.reasked).toMatchObject({ questions: ['prod/q00', 'prod/q01'], repeats: 5, questionRepeats: [5, 5], items: 10 });
    expect(perQuestion(confirmRunId)).toEqual({ q00: 5, q01: 5 });
    expect(creates()).toBe(10);
    expect(renderText(confirmDocument(r), 10_000)).toContain('2 questions x 5 repeats, 10 items of a budget of 10');
    // Decided on the record as it was: still without questionRepeats.
    expect(confirmationsOf(store.db, c)[0]!.record).toMatchObject({ ...old, decision: { verdict: r.verdict } });
    expect(confirmationsOf(store.db, c)[0]!.record!.questionRepeats).toBeUndefined();
  }, 60_000);
});
