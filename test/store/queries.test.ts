import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import {
  type QuestionExportRow,
  expectationSummary,
  findRun,
  comparedQuestionsSql,
  iterateComparedQuestions,
  iterateQuestionExport,
  iterateSearches,
  iterateTurns,
  listRuns,
  parseRunSelector,
  questionExportSql,
} from '../../src/store/queries.js';
import { type Store, openStore } from '../../src/store/store.js';
import { TARGETS, completedTurn, questionItems, runInfo } from './fixtures/sample.js';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-queries-'));
  store = openStore(path.join(dir, 'dsbench.db'));
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Run 1 (nightly): three questions (completed, error, pending) and a search; run 2 (nightly) and run 3 (adhoc): empty. */
function seed(): number {
  const r = store.recorder;
  const items = [...questionItems(3), { key: 'prod/search/s1/0', kind: 'search' as const, target: 'prod', suiteItemId: 's1', repeat: 0, tags: ['x'] }];
  const runId = r.createRun(runInfo(), TARGETS, items);
  r.recordTurn(runId, items[0]!.key, 0, completedTurn(0));
  r.recordTurn(runId, items[0]!.key, 1, { ...completedTurn(1), stats: { ...completedTurn(1).stats!, credits: 1 } });
  r.itemFinished(runId, items[0]!.key, 'completed', 't');
  r.recordTurn(runId, items[1]!.key, 0, { state: 'error', text: 'q1', polls: 1, error: { code: 'INTERNAL', rawCode: 'boom', message: 'broke' } });
  r.itemFinished(runId, items[1]!.key, 'error', 't', 'broke');
  r.recordSearch(runId, items[3]!.key, {
    query: 'foo',
    params: {},
    verdict: 'complete',
    counted: 5,
    countedByType: { content: 5 },
    repositories: 1,
    files: 2,
    exhaustive: true,
    wallMs: 12,
    skipped: [],
  });
  r.itemFinished(runId, items[3]!.key, 'complete', 't');
  r.recordExpectations(runId, items[0]!.key, [
    { name: 'contains', passed: true, reason: 'found it' },
    { name: 'maxCredits', passed: false, reason: 'expected <= 3, got 3.5', turn: 1 },
  ]);
  r.recordExpectations(runId, items[1]!.key, [{ name: 'state', passed: false, reason: 'expected completed, got error' }]);
  r.setRunStatus(runId, 'completed', 'end');
  r.createRun(runInfo({ startedAt: '2025-01-02T00:00:00Z' }), TARGETS.slice(0, 1), []);
  r.createRun(runInfo({ label: 'adhoc' }), TARGETS.slice(0, 1), []);
  return runId;
}

describe('queries', () => {
  it('lists runs newest first with targets, outcome counts and credits', () => {
    const runId = seed();
    const runs = listRuns(store.db);
    expect(runs.map((r) => r.id)).toEqual([3, 2, 1]);
    expect(runs[2]).toEqual({
      id: runId,
      label: 'nightly',
      suiteName: 'smoke',
      targets: ['emu', 'prod'],
      // emu is the embedded emulator: some of the run's answers are emulated.
      emulated: true,
      startedAt: '2025-01-01T00:00:00.000Z',
      endedAt: 'end',
      status: 'completed',
      items: 4,
      outcomes: { completed: 1, error: 1, pending: 1, complete: 1 },
      credits: 3.5,
      checks: { passed: 1, failed: 2 },
      // An item left pending: the run stopped before it.
      exitCode: ExitCode.aborted,
      split: null,
      rerunOf: null,
      confirmOf: null,
      comparedExit: null,
      nothingAsked: false,
      // Recorded without a product version: unknown, with no reason.
      productVersions: ['emu', 'prod'].map((target) => ({ target, version: null, error: null, onResume: null })),
    });
    expect(runs[0]).toMatchObject({ items: 0, outcomes: {}, credits: null, endedAt: null, status: 'running' });
    expect(listRuns(store.db, { limit: 1 }).map((r) => r.id)).toEqual([3]);
  });

  it('finds a run by id, latest, or newest with a label', () => {
    seed();
    expect(findRun(store.db, 1)!.options).toEqual({ concurrency: 4, repeats: 1 });
    expect(findRun(store.db, 'latest')!.id).toBe(3);
    expect(findRun(store.db, 'nightly')!.id).toBe(2);
    expect(findRun(store.db, 'nope')).toBeUndefined();
    expect(findRun(store.db, 99)).toBeUndefined();
    expect(parseRunSelector('12')).toBe(12);
    expect(parseRunSelector('latest')).toBe('latest');
    expect(parseRunSelector('v1.2')).toBe('v1.2');
  });

  it('iterates turns with their items in plan order, stats null when absent', () => {
    const runId = seed();
    const turns = [...iterateTurns(store.db, runId)];
    expect(turns.map((t) => [t.itemKey, t.turn])).toEqual([
      ['emu/question/q0/0', 0],
      ['emu/question/q0/0', 1],
      ['emu/question/q1/0', 0],
    ]);
    expect(turns[0]).toMatchObject({ kind: 'question', target: 'emu', suiteItemId: 'q0', tags: ['smoke', 'n0'], outcome: 'completed', credits: 2.5, cachedTokens: 0 });
    expect(turns[2]).toMatchObject({ state: 'error', errorCode: 'INTERNAL', errorRawCode: 'boom', credits: null, timeMillis: null, totalTokens: null });
  });

  it('iterates searches and summarizes expectations', () => {
    const runId = seed();
    const searches = [...iterateSearches(store.db, runId)];
    expect(searches).toHaveLength(1);
    expect(searches[0]).toMatchObject({ itemKey: 'prod/search/s1/0', tags: ['x'], params: {}, countedByType: { content: 5 }, exhaustive: true, skipped: [], matchCount: null });
    const summary = expectationSummary(store.db, runId);
    expect(summary).toMatchObject({ total: 3, passed: 1, failed: 2 });
    expect(summary.byName).toEqual([
      { name: 'contains', total: 1, passed: 1, failed: 0 },
      { name: 'maxCredits', total: 1, passed: 0, failed: 1 },
      { name: 'state', total: 1, passed: 0, failed: 1 },
    ]);
    expect(summary.failures.map((f) => [f.suiteItemId, f.name, f.turn])).toEqual([
      ['q0', 'maxCredits', 1],
      ['q1', 'state', null],
    ]);
    expect(expectationSummary(store.db, 99)).toEqual({ total: 0, passed: 0, failed: 0, byName: [], failures: [] });
  });
});

describe('the question export', () => {
  /** A row as the plain query gives it, from an export row: the parsed columns back as the stored JSON. */
  // `partial` is not stored: it is read from the state and the answer (isPartialAnswer).
  const asStored = ({ runId: _runId, tags: _tags, tagsJson, sourceLinks, suggestedFollowups, expectations, partial: _partial, ...rest }: QuestionExportRow): Record<string, unknown> => ({
    ...rest,
    tags: tagsJson,
    sourceLinks: JSON.stringify(sourceLinks),
    suggestedFollowups: JSON.stringify(suggestedFollowups),
    expectations: expectations.map((e) => ({ ...e, passed: e.passed ? 1 : 0 })),
  });
  const plainRows = (order: 'plan' | 'key', runId: number): Array<Record<string, unknown>> =>
    (store.db.prepare(questionExportSql({ order })).all(runId, null, null) as Array<Record<string, unknown>>).map((r) => ({
      ...r,
      expectations: JSON.parse(r.expectations as string) as unknown,
    }));

  it('gives the values of the plain query, row for row, in plan order (through a row function) and key order (the plain rows, as that plan sorts)', () => {
    const runId = seed();
    for (const order of ['plan', 'key'] as const) {
      const rows = [...iterateQuestionExport(store.db, runId, { order })].map(asStored);
      expect(rows.length).toBeGreaterThan(1);
      expect(rows).toEqual(plainRows(order, runId));
    }
  });

  it('keeps two reads on one connection apart when they interleave', () => {
    const runId = seed();
    const expected = [...iterateQuestionExport(store.db, runId)].map(asStored);
    const a = iterateQuestionExport(store.db, runId);
    const b = iterateQuestionExport(store.db, runId);
    const fromA: Array<Record<string, unknown>> = [];
    const fromB: Array<Record<string, unknown>> = [];
    for (;;) {
      const x = a.next();
      const y = b.next();
      if (x.done && y.done) break;
      if (!x.done) fromA.push(asStored(x.value));
      if (!y.done) fromB.push(asStored(y.value));
    }
    expect(fromA).toEqual(expected);
    expect(fromB).toEqual(expected);
  });
});

describe('the question turns compare reads', () => {
  it('are the export rows in key order, field for field, also for an item whose turn 0 was never recorded', () => {
    const runId = seed();
    const r = store.recorder;
    const third = questionItems(3)[2]!.key;
    r.recordTurn(runId, third, 1, completedTurn(1));
    r.recordTurn(runId, third, 2, completedTurn(2));
    r.recordExpectations(runId, third, [{ name: 'contains', passed: false, reason: 'not found' }]);
    const full = [...iterateQuestionExport(store.db, runId, { order: 'key' })];
    const compared = [...iterateComparedQuestions(store.db, runId)];
    expect(compared.map((c) => [c.suiteItemId, c.turn])).toEqual(full.map((f) => [f.suiteItemId, f.turn]));
    expect(compared.find((c) => c.turn === 2)?.expectations).toEqual([{ name: 'contains', passed: false, reason: 'not found', turn: null }]);
    compared.forEach((c, i) => {
      const f = full[i]!;
      for (const key of Object.keys(c).filter((k) => k !== 'itemRowId')) expect([key, c[key as keyof typeof c]]).toEqual([key, f[key as keyof typeof f]]);
    });
  });

  it('come in key order without a sort of the run: SQLite walks the pairing index and each item\'s turns', () => {
    seed();
    const plan = store.db.prepare(`EXPLAIN QUERY PLAN ${comparedQuestionsSql()}`).all(1, null, null) as Array<{ parent: number; detail: string }>;
    expect(plan.filter((step) => step.parent === 0 && step.detail.includes('TEMP B-TREE'))).toEqual([]);
  });
});
