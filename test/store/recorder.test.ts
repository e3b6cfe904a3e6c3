import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageError } from '../../src/errors/errors.js';
import type { PlannedItem } from '../../src/model/item.js';
import type { ResumeItem } from '../../src/model/run.js';
import { type Store, openStore } from '../../src/store/store.js';
import { TARGETS, completedTurn, questionItems, runInfo } from './fixtures/sample.js';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-recorder-'));
  store = openStore(path.join(dir, 'dsbench.db'));
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const search: PlannedItem = { key: 'prod/search/s1/0', kind: 'search', target: 'prod', suiteItemId: 's1', repeat: 0, tags: [] };

function turnRow(runId: number, key: string, turn: number): Record<string, unknown> {
  return store.db.prepare('SELECT * FROM turns WHERE run_id = ? AND item_key = ? AND turn = ?').get(runId, key, turn) as Record<string, unknown>;
}

describe('SqliteRecorder', () => {
  it('commits in groups: writes reach other connections once committed() resolves; the status of a run, commit() and close commit at once', async () => {
    const r = store.recorder;
    const [item] = questionItems(1);
    const runId = r.createRun(runInfo(), TARGETS, [item!]);
    const other = new Database(path.join(dir, 'dsbench.db'), { readonly: true });
    const statusOf = () => (other.prepare('SELECT status FROM items WHERE key = ?').pluck().get(item!.key) as string);
    try {
      expect(statusOf()).toBe('pending');
      expect(r.committed()).toBeUndefined();
      r.itemStarted(runId, item!.key, new Date().toISOString());
      r.recordTurn(runId, item!.key, 0, { state: 'sending', text: 'q', polls: 0 });
      const pending = r.committed();
      expect(pending).toBeInstanceOf(Promise);
      expect(r.committed()).toBe(pending);
      expect(statusOf()).toBe('pending');
      await pending;
      expect(statusOf()).toBe('running');
      expect(r.committed()).toBeUndefined();

      r.itemFinished(runId, item!.key, 'completed', new Date().toISOString());
      r.setRunStatus(runId, 'completed', new Date().toISOString());
      expect(statusOf()).toBe('done');

      r.recordTurn(runId, item!.key, 0, { state: 'completed', text: 'q', polls: 1 });
      r.commit();
      expect(other.prepare('SELECT state FROM turns').pluck().get()).toBe('completed');

      r.conversationDeleted(runId, item!.key, new Date().toISOString());
      store.close();
      expect(other.prepare('SELECT deleted_at IS NOT NULL FROM items').pluck().get()).toBe(1);
    } finally {
      other.close();
    }
  });

  it('a commit that fails loses the group, rejects committed() and every later write with its error', async () => {
    const r = store.recorder;
    const [item] = questionItems(1);
    const runId = r.createRun(runInfo(), TARGETS, [item!]);
    // Foreign keys checked at commit: a turn of an item never planned makes the commit itself fail.
    store.db.pragma('defer_foreign_keys = ON');
    r.itemStarted(runId, item!.key, new Date().toISOString());
    r.recordTurn(runId, 'emu/question/unplanned/0', 0, { state: 'sending', text: 'q', polls: 0 });
    const failed = await r.committed()!.catch((e: unknown) => e);
    expect(String(failed)).toMatch(/FOREIGN KEY/);
    expect(store.db.prepare('SELECT status FROM items').pluck().get()).toBe('pending');
    expect(() => r.itemFinished(runId, item!.key, 'completed', new Date().toISOString())).toThrow(/FOREIGN KEY/);
    await expect(r.committed()).rejects.toThrow(/FOREIGN KEY/);
  });

  it('translates its own storage failures: a write that fails throws the StorageError naming the database, which onStorageFailure hears once', () => {
    const r = store.recorder;
    const heard: unknown[] = [];
    r.onStorageFailure((error) => heard.push(error));
    const items = questionItems(200);
    const runId = r.createRun(runInfo(), TARGETS, items);
    // The database full from now on: a write that needs a new page fails (SQLITE_FULL).
    store.db.pragma(`max_page_count = ${store.db.pragma('page_count', { simple: true }) as number}`);
    let thrown: unknown;
    for (const [i, item] of items.entries()) {
      try {
        r.recordTurn(runId, item.key, 0, { ...completedTurn(i), answer: 'x'.repeat(4000) });
      } catch (error) {
        thrown = error;
        break;
      }
    }
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as StorageError).message).toContain(`results database ${store.path}: the disk is full`);
    expect(heard).toEqual([thrown]);
    // A failure passed up again (inOneCommit around the write) is not told twice.
    expect(() => r.inOneCommit(() => r.recordTurn(runId, items[0]!.key, 0, { ...completedTurn(0), answer: 'y'.repeat(40_000) }))).toThrow(StorageError);
    expect(heard.length).toBe(2);
    expect(heard[1]).not.toBe(heard[0]);
  });

  it('creates a run with its targets and planned items, and loads it back in plan order', () => {
    const r = store.recorder;
    const items = [...questionItems(3).reverse(), search];
    const runId = r.createRun(runInfo(), TARGETS, items);
    const state = r.loadRun(runId)!;
    expect(state.runId).toBe(runId);
    expect(state.status).toBe('running');
    expect(state.info).toEqual(runInfo());
    expect(state.targets).toEqual(TARGETS);
    expect(state.items.map((i) => i.key)).toEqual(items.map((i) => i.key));
    expect(state.items[0]).toEqual({ key: 'emu/question/q2/0', status: 'pending', outcome: undefined, conversationRef: undefined, deleted: false, turns: [] });
    expect(r.loadRun(runId + 1)).toBeUndefined();
    expect(r.createRun(runInfo({ label: undefined }), TARGETS, [])).toBe(runId + 1);
    expect(r.loadRun(runId + 1)!.info.label).toBeUndefined();
  });

  it('reads a run for a resume without its finished answers: the header and item count, keys one at a time, and turns only of items not done', () => {
    const r = store.recorder;
    const [done, running, pending] = questionItems(3);
    const runId = r.createRun(runInfo(), TARGETS, [done!, running!, pending!]);
    r.conversationCreated(runId, done!.key, '41', '2025-01-01T00:00:02Z');
    r.recordTurn(runId, done!.key, 0, completedTurn(0));
    r.itemFinished(runId, done!.key, 'completed', '2025-01-01T00:00:09Z');
    r.itemStarted(runId, running!.key, '2025-01-01T00:00:03Z');
    r.conversationCreated(runId, running!.key, '42', '2025-01-01T00:00:03Z');
    r.recordTurn(runId, running!.key, 0, completedTurn(1));
    r.recordTurn(runId, running!.key, 1, { state: 'processing', text: 'follow-up', questionId: '8', polls: 1 });
    const { items: _, ...header } = r.loadRun(runId)!;
    expect(r.loadRunInfo(runId)).toEqual({ ...header, itemCount: 3 });
    expect(r.loadRunInfo(runId + 1)).toBeUndefined();
    expect([done, running, pending].map((i) => r.hasItem(runId, i!.key))).toEqual([true, true, true]);
    expect(r.hasItem(runId, 'emu/question/q3/0')).toBe(false);
    expect(r.hasItem(runId + 1, done!.key)).toBe(false);
    const seen: ResumeItem[] = [];
    r.resumeItems(runId, (item) => seen.push(item));
    expect(seen.map((i) => [i.key, i.status, i.conversationRef, i.turns.length])).toEqual([
      [done!.key, 'done', '41', 0],
      [running!.key, 'running', '42', 2],
      [pending!.key, 'pending', undefined, 0],
    ]);
    // The unfinished item's turns come back whole, sources and suggested follow-ups included, as loadRun gives them.
    expect(seen[1]!.turns).toEqual(r.loadRun(runId)!.items[1]!.turns);
    expect(seen[1]!.turns[0]!.sources).toHaveLength(completedTurn(1).sources!.length);
  });

  it('stores no secrets: credential-like option keys are dropped at any depth, and URL credentials', () => {
    const r = store.recorder;
    const options = {
      concurrency: 2,
      readToken: 'rt-123',
      headers: { Authorization: 'token sgp_x', accept: 'json' },
      targets: [{ name: 'a', accessToken: 'sgp_y', shareUrl: 'https://x/deepsearch/abc', password: 'p' }],
      clientSecret: 's',
    };
    const runId = r.createRun(runInfo({ options }), [{ ...TARGETS[1]!, url: 'https://bob:hunter2@sg.example.com/?token=abc' }], []);
    expect(r.loadRun(runId)!.info.options).toEqual({ concurrency: 2, headers: { accept: 'json' }, targets: [{ name: 'a' }] });
    expect(r.loadRun(runId)!.targets[0]!.url).toBe('https://sg.example.com');
    const dump = JSON.stringify(store.db.prepare('SELECT * FROM runs').all()) + JSON.stringify(store.db.prepare('SELECT * FROM targets').all());
    expect(dump).not.toMatch(/rt-123|sgp_|hunter2|abc|"s"/);
  });

  it('follows an item through its life: started, conversation, turns, finished, deleted', () => {
    const r = store.recorder;
    const [item] = questionItems(1);
    const runId = r.createRun(runInfo(), TARGETS, [item!]);
    r.itemStarted(runId, item!.key, '2025-01-01T00:00:01Z');
    r.itemStarted(runId, item!.key, '2025-01-01T00:05:00Z');
    r.conversationCreated(runId, item!.key, '42', '2025-01-01T00:00:02Z');
    r.recordTurn(runId, item!.key, 0, { state: 'sending', text: 'q', sentAt: '2025-01-01T00:00:02Z', polls: 0 });
    r.recordTurn(runId, item!.key, 0, { state: 'processing', text: 'q', questionId: '7', polls: 1 });
    let state = r.loadRun(runId)!;
    expect(state.items[0]).toMatchObject({
      status: 'running',
      conversationRef: '42',
      turns: [{ turn: 0, state: 'processing', questionId: '7', sentAt: '2025-01-01T00:00:02Z' }],
    });
    r.recordTurn(runId, item!.key, 0, { ...completedTurn(0), sentAt: undefined, questionId: undefined });
    r.recordTurn(runId, item!.key, 1, { state: 'sending', text: 'follow-up', polls: 0 });
    r.itemFinished(runId, item!.key, 'completed', '2025-01-01T00:00:09Z');
    r.conversationDeleted(runId, item!.key, '2025-01-01T00:00:10Z');
    r.setRunStatus(runId, 'completed', '2025-01-01T00:00:11Z');
    state = r.loadRun(runId)!;
    expect(state.status).toBe('completed');
    expect(state.items[0]).toMatchObject({ status: 'done', outcome: 'completed' });
    expect(state.items[0]!.turns.map((t) => [t.turn, t.state, t.questionId])).toEqual([
      [0, 'completed', '7'],
      [1, 'sending', undefined],
    ]);
    const row = store.db.prepare('SELECT * FROM items').get() as Record<string, unknown>;
    expect(row).toMatchObject({
      started_at: '2025-01-01T00:00:01Z',
      conversation_created_at: '2025-01-01T00:00:02Z',
      ended_at: '2025-01-01T00:00:09Z',
      deleted_at: '2025-01-01T00:00:10Z',
    });
    expect(store.db.prepare('SELECT ended_at FROM runs').pluck().get()).toBe('2025-01-01T00:00:11Z');
    r.setRunStatus(runId, 'running', '2025-01-02T00:00:00Z');
    expect(store.db.prepare('SELECT ended_at FROM runs').pluck().get()).toBeNull();
  });

  it('upserts a turn: merges fields, keeps observations, replaces sources and follow-ups only when given', () => {
    const r = store.recorder;
    const [item] = questionItems(1);
    const runId = r.createRun(runInfo(), TARGETS, [item!]);
    r.recordTurn(runId, item!.key, 0, completedTurn(0));
    let row = turnRow(runId, item!.key, 0);
    expect(row).toMatchObject({ state: 'completed', time_millis: 1200, cached_tokens: 0, credits: 2.5, polls: 4, server_ms_source: 'stats.time_millis' });
    r.recordTurn(runId, item!.key, 0, { state: 'completed', text: 'question 0', polls: 5 });
    row = turnRow(runId, item!.key, 0);
    expect(row).toMatchObject({ polls: 5, answer: 'answer 0', credits: 2.5, sent_at: '2025-01-01T00:00:01.000Z' });
    expect(store.db.prepare('SELECT label FROM sources ORDER BY position').pluck().all()).toEqual(['f0.ts', 'repo']);
    r.recordTurn(runId, item!.key, 0, { state: 'completed', text: 'question 0', polls: 5, sources: [{ type: 'file', link: '/x', label: 'x' }], suggestedFollowups: [] });
    expect(store.db.prepare('SELECT label FROM sources').pluck().all()).toEqual(['x']);
    expect(store.db.prepare('SELECT count(*) FROM suggested_followups').pluck().get()).toBe(0);
    expect(store.db.prepare('SELECT count(*) FROM turns').pluck().get()).toBe(1);
  });

  it('writes NULL for stats the API does not have, never 0, and keeps error fields', () => {
    const r = store.recorder;
    const [item] = questionItems(1, 'prod');
    const runId = r.createRun(runInfo(), TARGETS, [item!]);
    r.recordTurn(runId, item!.key, 0, {
      state: 'error',
      text: 'q',
      error: { code: 'QUOTA_EXCEEDED', rawCode: 'quota_exceeded', message: 'no more', title: 'Quota', retryTime: '2025-01-02T00:00:00Z' },
      clientError: 'HTTP 500 on POST /x with token sgp_abcdef123',
      serverMs: 800,
      serverMsSource: 'timestamps',
      polls: 2,
    });
    const row = turnRow(runId, item!.key, 0);
    for (const column of ['time_millis', 'tool_calls', 'total_input_tokens', 'cached_tokens', 'cache_creation_input_tokens', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'credits']) {
      expect(row[column], column).toBeNull();
    }
    expect(row).toMatchObject({ error_code: 'QUOTA_EXCEEDED', error_raw_code: 'quota_exceeded', error_message: 'no more', error_title: 'Quota', error_details: null, error_retry_time: '2025-01-02T00:00:00Z', server_ms: 800 });
    expect(row.client_error).not.toMatch(/abcdef123/);
  });

  it('records searches (upsert), expectations (replaced), quota snapshots and skipped items', () => {
    const r = store.recorder;
    const [q] = questionItems(1);
    const runId = r.createRun(runInfo(), TARGETS, [q!, search]);
    const record = {
      query: 'repo:x foo',
      params: { displayLimit: 100, token: 'nope' },
      verdict: 'limit_hit' as const,
      matchCount: 100,
      counted: 100,
      countedByType: { content: 90, path: 10 },
      repositories: 3,
      files: 40,
      exhaustive: false,
      wallMs: 321,
      skipped: [{ reason: 'shard-timeout', title: 'slow' }],
    };
    r.recordSearch(runId, search.key, record);
    r.recordSearch(runId, search.key, { ...record, verdict: 'complete', exhaustive: true });
    const s = store.db.prepare('SELECT * FROM searches').all() as Array<Record<string, unknown>>;
    expect(s).toHaveLength(1);
    expect(s[0]).toMatchObject({ verdict: 'complete', exhaustive: 1, params_json: '{"displayLimit":100}', repositories_count: null, duration_ms: null });

    r.recordExpectations(runId, q!.key, [{ name: 'contains', passed: false, reason: 'x', turn: 0 }, { name: 'state', passed: true, reason: 'y' }]);
    r.recordExpectations(runId, q!.key, [{ name: 'state', passed: true, reason: 'z' }]);
    expect(store.db.prepare('SELECT name, passed, reason, turn FROM expectations').all()).toEqual([{ name: 'state', passed: 1, reason: 'z', turn: null }]);

    r.quotaSnapshot(runId, 'emu', { totalQuota: 10, quotaLimit: -1 }, '2025-01-01T00:00:00Z');
    r.quotaSnapshot(runId, 'emu', { totalQuota: 12.5, quotaLimit: 100, resetTime: '2025-02-01T00:00:00Z' }, '2025-01-01T00:01:00Z');
    expect(store.db.prepare('SELECT total_quota, quota_limit, reset_time FROM quota_snapshots ORDER BY at').all()).toEqual([
      { total_quota: 10, quota_limit: -1, reset_time: null },
      { total_quota: 12.5, quota_limit: 100, reset_time: '2025-02-01T00:00:00Z' },
    ]);

    r.itemSkipped(runId, q!.key, 'quota exhausted', '2025-01-01T00:02:00Z');
    expect(r.loadRun(runId)!.items[0]).toMatchObject({ status: 'skipped', outcome: 'skipped' });
  });

  it('fails loudly on a key or run it never planned', () => {
    const r = store.recorder;
    const runId = r.createRun(runInfo(), TARGETS, questionItems(1));
    expect(() => r.itemStarted(runId, 'emu/question/nope/0', 'x')).toThrow(/no item emu\/question\/nope\/0/);
    expect(() => r.setRunStatus(runId + 5, 'aborted', 'x')).toThrow(/no run/);
    expect(() => r.recordTurn(runId, 'emu/question/nope/0', 0, { state: 'sending', text: 'q', polls: 0 })).toThrow(/no item emu\/question\/nope\/0 in run 1/);
    expect(() => r.recordExpectations(runId + 1, 'emu/question/q0/0', [{ name: 'state', passed: true, reason: '' }])).toThrow(/no item/);
    expect(() => r.createRun(runInfo(), TARGETS, questionItems(1, 'elsewhere'))).toThrow(/FOREIGN KEY/);
    expect(store.db.prepare('SELECT count(*) FROM runs').pluck().get()).toBe(1);
  });

  it('deletes a run whole, down to its sources, through the cascades', () => {
    const r = store.recorder;
    const items = questionItems(2);
    const runId = r.createRun(runInfo(), TARGETS, items);
    r.recordTurn(runId, items[0]!.key, 0, completedTurn(0));
    r.recordExpectations(runId, items[0]!.key, [{ name: 'state', passed: true, reason: '' }]);
    r.quotaSnapshot(runId, 'emu', { totalQuota: 1, quotaLimit: 2 }, 't');
    store.db.prepare('DELETE FROM runs WHERE id = ?').run(runId);
    for (const table of ['targets', 'items', 'turns', 'sources', 'suggested_followups', 'expectations', 'quota_snapshots']) {
      expect(store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBe(0);
    }
  });

  it('closing the recorder closes the store, and both are idempotent', () => {
    store.recorder.close();
    expect(store.db.open).toBe(false);
    store.close();
  });
});
