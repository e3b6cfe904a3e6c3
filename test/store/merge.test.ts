// dsbench merge on shard databases written through the store's own recorder: everything carried, a
// repeat is a no-op, and every refusal (other suite or settings, overlap, missing shards, a group already
// merged, bad paths) says what to do.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSuite } from '../../src/config/load-suite.js';
import { UsageError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { planRun, type WorkItem } from '../../src/runner/plan.js';
import type { RunStatus, TargetInfo } from '../../src/model/run.js';
import { runGroupId, shardPlan } from '../../src/runner/shard.js';
import { runsTable } from '../../src/cli/runs.js';
import { runReport } from '../../src/cli/report.js';
import { mergeShards } from '../../src/store/merge.js';
import { findRun, listRuns, lostCreateChecks, runProductVersions } from '../../src/store/queries.js';
import { resolveRun } from '../../src/report/open.js';
import { openStore } from '../../src/store/store.js';

const SUITE = parseSuite(
  `name: merge
questions:
${Array.from({ length: 9 }, (_, i) => `  - id: q${i}\n    question: "Question ${i}?"\n    repeats: ${1 + (i % 2)}\n${i % 3 === 0 ? '    followups: ["And then?"]\n' : ''}`).join('')}
searches:
  - { id: s0, query: "retry count:all" }
  - { id: s1, query: "fetch count:all" }
`,
  'merge.yaml',
).resolved;
const TARGETS: TargetInfo[] = [{ name: 'prod', url: 'https://sg.example.com', api: 'legacy', emulated: false }];
const WHOLE = planRun(SUITE, ['prod']);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-merge-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface ShardSpec {
  index: number;
  count: number;
  label?: string;
  suiteHash?: string;
  options?: Record<string, unknown>;
  status?: RunStatus;
  /** Items to record instead of the shard's own (to fake an overlap). */
  items?: WorkItem[];
  file?: string;
}

/** A shard database as `dsbench run --shard` leaves it, every item recorded with turns, sources, follow-ups and checks. */
function shardDb(spec: ShardSpec): string {
  const file = spec.file ?? path.join(dir, `shard-${spec.index}-of-${spec.count}-${spec.label ?? 'g'}-${Math.random().toString(36).slice(2)}.db`);
  const store = openStore(file);
  const r = store.recorder;
  const suiteHash = spec.suiteHash ?? 'hash-1';
  const label = spec.label ?? 'nightly-7';
  const items = spec.items ?? shardPlan(WHOLE, { index: spec.index, count: spec.count });
  const runId = r.createRun(
    {
      label: 'nightly',
      suiteName: 'merge',
      suitePath: '/ci/suites/merge.yaml',
      suiteHash,
      dsbenchVersion: '0.1.0',
      options: spec.options ?? { api: 'legacy', concurrency: 2 },
      startedAt: `2026-11-23T03:0${spec.index}:00.000Z`,
      group: { id: runGroupId({ suiteHash, targets: TARGETS, label }), label, shardIndex: spec.index, shardCount: spec.count },
    },
    TARGETS,
    items,
  );
  const at = '2026-11-23T03:30:00.000Z';
  r.productVersion(runId, 'prod', { version: '6.9.2' });
  r.quotaSnapshot(runId, 'prod', { totalQuota: spec.index, quotaLimit: 100 }, at);
  r.unownedConversation(runId, 'prod', { ref: `users/~self/conversations/90${spec.index}`, text: 'asked twice' }, at);
  // Every shard gave up a create of the same text; only the first shard's check failed.
  r.lostCreate(runId, 'prod', 'asked twice', at);
  r.lostCreatesChecked(runId, 'prod', at, spec.index === 1 ? 'HTTP 503 on the list' : undefined);
  for (const item of items) {
    r.itemStarted(runId, item.key, at);
    if (item.kind === 'question') {
      const texts = [item.question.text, ...item.question.followups.map((f) => f.text)];
      texts.forEach((text, turn) =>
        r.recordTurn(runId, item.key, turn, {
          state: 'completed',
          text,
          questionId: `${item.key}#${turn}`,
          answer: `answer to ${text}`,
          sources: [{ type: 'file', link: `https://sg.example.com/${item.suiteItemId}`, label: 'src' }],
          suggestedFollowups: ['More?'],
          polls: 2,
          serverMs: 1000 + turn,
        }),
      );
    } else {
      r.recordSearch(runId, item.key, { query: item.search.query, params: {}, verdict: 'complete', counted: 3, countedByType: { content: 3 }, repositories: 1, files: 2, wallMs: 5, skipped: [] });
    }
    r.recordExpectations(runId, item.key, [{ name: 'contains', passed: item.repeat === 0, reason: `repeat ${item.repeat}` }]);
    r.itemFinished(runId, item.key, item.kind === 'question' ? 'completed' : 'complete', at);
  }
  r.setRunStatus(runId, spec.status ?? 'completed', `2026-11-23T04:0${spec.index}:00.000Z`);
  store.close();
  return file;
}

function shards(count: number, spec: Partial<ShardSpec> = {}): string[] {
  return Array.from({ length: count }, (_, i) => shardDb({ ...spec, index: i + 1, count }));
}

function readDb<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const count = (db: Database.Database, table: string, runId: number) => db.prepare(`SELECT count(*) FROM ${table} WHERE run_id = ?`).pluck().get(runId) as number;

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('dsbench merge', () => {
  it('makes one run with every item, turn, source, follow-up, search, check, quota snapshot and conversation asked twice of every shard, in plan order', () => {
    const into = path.join(dir, 'merged.db');
    const [merged] = mergeShards({ sources: shards(3).reverse(), into, batchRows: 5 });
    expect(merged).toMatchObject({ shards: [1, 2, 3], missing: [], partial: false, status: 'completed', items: WHOLE.length, alreadyMerged: false });
    readDb(into, (db) => {
      const id = merged!.runId;
      const items = db.prepare('SELECT key, position, status FROM items WHERE run_id = ? ORDER BY position').all(id) as Array<{ key: string; position: number; status: string }>;
      expect(items.map((i) => i.key)).toEqual(WHOLE.map((i) => i.key));
      expect(items.map((i) => i.position)).toEqual(WHOLE.map((_, p) => p));
      const questions = WHOLE.filter((i) => i.kind === 'question');
      const turns = questions.reduce((sum, i) => sum + (i.kind === 'question' ? 1 + i.question.followups.length : 0), 0);
      expect(count(db, 'turns', id)).toBe(turns);
      expect(count(db, 'sources', id)).toBe(turns);
      expect(count(db, 'suggested_followups', id)).toBe(turns);
      expect(count(db, 'searches', id)).toBe(WHOLE.length - questions.length);
      expect(count(db, 'expectations', id)).toBe(WHOLE.length);
      expect(count(db, 'quota_snapshots', id)).toBe(3);
      expect(count(db, 'unowned_conversations', id)).toBe(3);
      expect(count(db, 'lost_creates', id)).toBe(3);
      // One shard could not check its given-up create: the merged run says so.
      expect(lostCreateChecks(db, id)).toEqual([{ target: 'prod', texts: 1, unchecked: 1, error: 'HTTP 503 on the list' }]);
      const run = db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as Record<string, unknown>;
      expect(run).toMatchObject({
        label: 'nightly',
        status: 'completed',
        group_label: 'nightly-7',
        shard_index: null,
        shard_count: 3,
        partial: 0,
        started_at: '2026-11-23T03:01:00.000Z',
        ended_at: '2026-11-23T04:03:00.000Z',
        suite_hash: 'hash-1',
      });
      expect(db.prepare('SELECT name, url FROM targets WHERE run_id = ?').all(id)).toEqual([{ name: 'prod', url: 'https://sg.example.com' }]);
      expect(runProductVersions(db, id)).toEqual([{ target: 'prod', version: '6.9.2', error: null, onResume: null }]);
      // Each item keeps what defines it, so a merged run pairs with its edits as an unsplit one does.
      expect(db.prepare('SELECT count(*) FROM items WHERE run_id = ? AND definition_hash IS NOT NULL').pluck().get(id)).toBe(WHOLE.length);
      expect(db.prepare('SELECT shard_index FROM run_shards WHERE run_id = ? ORDER BY shard_index').pluck().all(id)).toEqual([1, 2, 3]);
    });
  });

  it('is a no-op when repeated with the same shards, and refuses shards that changed since', () => {
    const files = shards(2);
    const into = path.join(dir, 'merged.db');
    const first = mergeShards({ sources: files, into })[0]!;
    const again = mergeShards({ sources: [...files].reverse(), into })[0]!;
    expect(again).toMatchObject({ runId: first.runId, alreadyMerged: true });
    readDb(into, (db) => {
      expect(db.prepare('SELECT count(*) FROM runs').pluck().get()).toBe(1);
      expect(count(db, 'items', first.runId)).toBe(WHOLE.length);
    });
    // Shard 2 resumed and ended again: not the shards that were merged.
    const db = new Database(files[1]!);
    db.prepare(`UPDATE runs SET ended_at = '2026-11-23T05:00:00.000Z'`).run();
    db.close();
    expect(refusal(() => mergeShards({ sources: files, into }))).toMatch(/already holds group nightly-7 \(\w+\) as run 1.*merge into another database/);
  });

  it('refuses missing shards unless --allow-partial, which marks the run partial', () => {
    const files = shards(4);
    const into = path.join(dir, 'merged.db');
    expect(refusal(() => mergeShards({ sources: [files[0]!, files[2]!], into }))).toMatch(
      /shards 2, 4 of 4 of --group nightly-7 are missing \(given: 1, 3\); pass their databases, or --allow-partial/,
    );
    const [merged] = mergeShards({ sources: [files[0]!, files[2]!], into, allowPartial: true });
    // A run without some of its shards did not run the whole suite: never completed.
    expect(merged).toMatchObject({ shards: [1, 3], missing: [2, 4], partial: true, status: 'aborted' });
    readDb(into, (db) => {
      expect(db.prepare('SELECT partial FROM runs WHERE id = ?').pluck().get(merged!.runId)).toBe(1);
      const split = { groupId: merged!.groupId, groupLabel: 'nightly-7', shardIndex: null, shardCount: 4, shards: [1, 3], partial: true };
      expect(findRun(db, merged!.runId)?.split).toEqual(split);
      const runs = listRuns(db);
      expect(runs[0]?.split).toEqual(split);
      expect(runsTable(runs, 10_000)).toMatch(/shard\n.*merged 2\/4 PARTIAL/s);
    });
  });

  it('shows in runs and report which shard a run is, or that it was merged, and whether shards were missing', async () => {
    const files = shards(2);
    readDb(files[1]!, (db) => expect(runsTable(listRuns(db))).toMatch(/ 2\/2\n$/));
    const into = path.join(dir, 'merged.db');
    const full = mergeShards({ sources: files, into })[0]!;
    readDb(into, (db) => expect(runsTable(listRuns(db))).toMatch(/merged 2\/2\n$/));
    const report = async (db: string) => {
      const out: string[] = [];
      expect(await runReport({ db, run: 'latest', format: 'md', out: path.join(dir, `report-${out.length}-${Math.random()}`) }, { write: (t: string) => out.push(t) })).toBe(0);
      return out.join('');
    };
    expect(await report(into)).toContain(`Merged from all 2 shards of run group nightly-7 (${full.groupId}).`);
    expect(await report(files[0]!)).toMatch(/Shard 1\/2 of run group nightly-7 .*dsbench merge joins the shards/);
    const partialDb = path.join(dir, 'partial.db');
    mergeShards({ sources: [files[1]!], into: partialDb, allowPartial: true });
    expect(await report(partialDb)).toMatch(/\*\*PARTIAL\*\*: merged from shards 2 of 2 of run group nightly-7 .*the items of shard 1 are not in this run/);
  });

  it('refuses a shard given twice (two nightlies under one --group)', () => {
    const one = shards(2);
    const other = shardDb({ index: 2, count: 2 });
    expect(refusal(() => mergeShards({ sources: [...one, other], into: path.join(dir, 'm.db') }))).toMatch(
      /shard 2\/2 of --group nightly-7 is given twice: .*run 1 and .*run 1.*give each its own --group/,
    );
  });

  it.each([
    ['another suite file', { suiteHash: 'hash-2' }, /different suite files \(merge sha256 hash-1 vs merge sha256 hash-2\)/],
    ['other settings', { options: { api: 'legacy', concurrency: 8 } }, /different settings/],
  ])('refuses shards of %s under one --group', (_, change, message) => {
    const files = [shardDb({ index: 1, count: 2 }), shardDb({ index: 2, count: 2, ...change })];
    expect(refusal(() => mergeShards({ sources: files, into: path.join(dir, 'm.db') }))).toMatch(message);
  });

  it('refuses shards of different shard counts, and shards whose items overlap', () => {
    expect(refusal(() => mergeShards({ sources: [shardDb({ index: 1, count: 2 }), shardDb({ index: 2, count: 3 })], into: path.join(dir, 'a.db') }))).toMatch(
      /split the suite differently \(--shard 1\/2 vs 2\/3\)/,
    );
    const into = path.join(dir, 'b.db');
    const overlapping = [shardDb({ index: 1, count: 2 }), shardDb({ index: 2, count: 2, items: WHOLE.map((item, position) => ({ ...item, position })) })];
    expect(refusal(() => mergeShards({ sources: overlapping, into }))).toMatch(/run 1 overlaps a shard merged before it/);
    // Nothing half-merged is left behind.
    readDb(into, (db) => expect(db.prepare('SELECT count(*) FROM items').pluck().get()).toBe(0));
  });

  it('refuses bad paths: a missing file, one given twice, the target among the shards, a database with no shard', () => {
    const [a] = shards(1);
    expect(refusal(() => mergeShards({ sources: [path.join(dir, 'nope.db')], into: path.join(dir, 'm.db') }))).toMatch(/no database at .*nope\.db/);
    expect(refusal(() => mergeShards({ sources: [a!, a!], into: path.join(dir, 'm.db') }))).toMatch(/is given twice/);
    expect(refusal(() => mergeShards({ sources: [a!], into: a! }))).toMatch(/--into .* is also one of the shard databases/);
    const plain = path.join(dir, 'plain.db');
    openStore(plain).close();
    expect(refusal(() => mergeShards({ sources: [plain], into: path.join(dir, 'm.db') }))).toMatch(/holds no shard \(0 runs, none run with --shard\)/);
    expect(refusal(() => mergeShards({ sources: [], into: path.join(dir, 'm.db') }))).toMatch(/give the shard databases/);
  });

  it('says aborted when a shard was aborted or its job died while running, and replaces an interrupted merge', () => {
    const files = [shardDb({ index: 1, count: 2, status: 'running' }), shardDb({ index: 2, count: 2 })];
    const into = path.join(dir, 'merged.db');
    const [merged] = mergeShards({ sources: files, into });
    expect(merged!.status).toBe('aborted');
    // An interrupted merge leaves its run running; the next merge starts it over.
    const db = new Database(into);
    db.prepare(`UPDATE runs SET status = 'running'`).run();
    db.close();
    const logs: string[] = [];
    const [again] = mergeShards({ sources: files, into, log: (m) => logs.push(m) });
    expect(again).toMatchObject({ alreadyMerged: false, status: 'aborted' });
    expect(logs.join('\n')).toMatch(/run 1 is an interrupted merge of group nightly-7 .*deleting it and merging again/);
    readDb(into, (d) => expect(d.prepare('SELECT id FROM runs').pluck().all()).toEqual([again!.runId]));
  });

  it('refuses to merge a group another live merge is still copying (exit 7), and takes over from a dead one', () => {
    const files = shards(2);
    const into = path.join(dir, 'merged.db');
    const [merged] = mergeShards({ sources: files, into });
    const holdBy = (pid: number) => {
      const db = new Database(into);
      db.prepare(`UPDATE runs SET status = 'running'`).run();
      db.prepare(`INSERT OR REPLACE INTO run_leases (run_id, holder, pid, host, acquired_at, heartbeat_at) VALUES (?, 'other', ?, ?, ?, ?)`).run(
        merged!.runId,
        pid,
        os.hostname(),
        new Date().toISOString(),
        new Date().toISOString(),
      );
      db.close();
    };
    // A live process of this host (this one, under another holder) is still copying: its run is left alone.
    holdBy(process.pid);
    let refused: unknown;
    try {
      mergeShards({ sources: files, into });
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ exitCode: ExitCode.runHeld });
    expect((refused as Error).message).toContain(`is being merged by another dsbench (pid ${process.pid} on host ${os.hostname()})`);
    readDb(into, (d) => expect(d.prepare('SELECT id, status FROM runs').all()).toEqual([{ id: merged!.runId, status: 'running' }]));
    // Its process gone, the next merge takes over, says so, and merges again.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    holdBy(gone);
    const logs: string[] = [];
    const [again] = mergeShards({ sources: files, into, log: (m) => logs.push(m) });
    expect(again).toMatchObject({ alreadyMerged: false, status: 'completed' });
    expect(logs.join('\n')).toContain(`took over run ${merged!.runId} from pid ${gone}`);
    readDb(into, (d) => {
      expect(d.prepare('SELECT id FROM runs').pluck().all()).toEqual([again!.runId]);
      expect(d.prepare('SELECT count(*) FROM run_leases').pluck().get()).toBe(0);
    });
  });

  it('carries the grades and citations of every turn, and the judge cache', () => {
    const files = shards(3);
    for (const file of files) {
      const db = new Database(file);
      db.exec(`INSERT INTO grades (run_id, item_key, turn, spec, status, score, judge_pass, min_score, passed, reasons_json, model, prompt_version,
          prompt_hash, inputs_hash, cached, graded_at)
        SELECT run_id, item_key, turn, 'question', 'graded', 4, 1, 3, 1, '[]', 'judge', 'v1', 'p', 'i', 0, 'now' FROM turns;
        INSERT INTO citations (run_id, item_key, turn, position, origin, repository, link, status, reason, checked_at)
        SELECT run_id, item_key, turn, 0, 'source', 'github.com/org/repo', 'https://x/' || item_key, 'valid', 'found', 'now' FROM turns;
        INSERT INTO judge_cache (model, prompt_hash, inputs_hash, content, prompt_tokens, completion_tokens, created_at)
        SELECT 'judge', 'p', item_key || '#' || turn, '{"score":4}', 100, 10, 'now' FROM turns;
        INSERT INTO judge_cache VALUES ('judge', 'p', 'shared', '{"score":5}', 1, 1, 'now')`);
      db.close();
    }
    const into = path.join(dir, 'merged.db');
    const [merged] = mergeShards({ sources: files, into });
    readDb(into, (db) => {
      const turns = count(db, 'turns', merged!.runId);
      expect(turns).toBeGreaterThan(0);
      expect(count(db, 'grades', merged!.runId)).toBe(turns);
      expect(count(db, 'citations', merged!.runId)).toBe(turns);
      // Every shard's cached judge answers, once each (one entry all three shards hold).
      expect(db.prepare('SELECT count(*) FROM judge_cache').pluck().get()).toBe(turns + 1);
    });
  });

  it('carries item-level tables it does not know (item_scores, ...) and no run-level ones it does not know', () => {
    const files = shards(2);
    const into = path.join(dir, 'merged.db');
    const addTables = (file: string, fill: boolean) => {
      const db = new Database(file);
      db.exec(`CREATE TABLE item_scores (run_id INTEGER NOT NULL, item_key TEXT NOT NULL, score REAL, PRIMARY KEY (run_id, item_key),
        FOREIGN KEY (run_id, item_key) REFERENCES items (run_id, key) ON DELETE CASCADE);
        CREATE TABLE run_notes (run_id INTEGER NOT NULL, note TEXT)`);
      if (fill) {
        db.exec(`INSERT INTO item_scores SELECT run_id, key, position / 10.0 FROM items; INSERT INTO run_notes VALUES (1, 'machine-local')`);
      }
      db.close();
    };
    files.forEach((f) => addTables(f, true));
    openStore(into).close();
    addTables(into, false);
    const [merged] = mergeShards({ sources: files, into });
    readDb(into, (db) => {
      expect(count(db, 'item_scores', merged!.runId)).toBe(WHOLE.length);
      expect(db.prepare('SELECT sum(score) FROM item_scores').pluck().get()).toBeCloseTo(WHOLE.reduce((s, _, p) => s + p / 10, 0));
      expect(count(db, 'run_notes', merged!.runId)).toBe(0);
    });
  });

  it('a label or latest picks a whole run over a shard that landed in the same database; a shard database still finds its shard', () => {
    const into = path.join(dir, 'results.db');
    const [earlier] = mergeShards({ sources: shards(2, { label: 'night-1' }), into });
    const [merged] = mergeShards({ sources: shards(2, { label: 'night-2' }), into });
    // A shard job that wrote into the results database by mistake, under the nightly label, after the merges.
    shardDb({ index: 1, count: 2, label: 'night-3', file: into });
    readDb(into, (db) => {
      const stray = db.prepare('SELECT max(id) FROM runs').pluck().get() as number;
      expect(findRun(db, 'nightly')?.id).toBe(merged!.runId);
      expect(findRun(db, 'latest')?.id).toBe(merged!.runId);
      expect(resolveRun(db, into, 'nightly~1').id).toBe(earlier!.runId);
      expect(findRun(db, stray)?.split?.shardIndex).toBe(1);
    });
    const shardOnly = shardDb({ index: 2, count: 2 });
    readDb(shardOnly, (db) => {
      expect(findRun(db, 'latest')?.split?.shardIndex).toBe(2);
      expect(findRun(db, 'nightly')?.split?.shardIndex).toBe(2);
    });
  });

  it('a merge killed while it copied is no whole run: latest and its label pass it by, and its report says it is unfinished', async () => {
    const into = path.join(dir, 'results.db');
    const [earlier] = mergeShards({ sources: shards(2, { label: 'night-1' }), into });
    const [cut] = mergeShards({ sources: shards(2, { label: 'night-2' }), into });
    // As a kill while copying leaves it: running, with part of the items and no shard recorded yet.
    const db = new Database(into);
    db.prepare(`UPDATE runs SET status = 'running' WHERE id = ?`).run(cut!.runId);
    db.prepare('DELETE FROM run_shards WHERE run_id = ?').run(cut!.runId);
    db.prepare(`DELETE FROM items WHERE run_id = ? AND key LIKE '%q1%'`).run(cut!.runId);
    db.close();
    readDb(into, (d) => {
      expect(findRun(d, 'latest')?.id).toBe(earlier!.runId);
      expect(findRun(d, 'nightly')?.id).toBe(earlier!.runId);
      expect(findRun(d, cut!.runId)?.id).toBe(cut!.runId);
    });
    const out: string[] = [];
    expect(await runReport({ db: into, run: String(cut!.runId), format: 'md', out: path.join(dir, 'report-cut') }, { write: (t: string) => out.push(t) })).toBe(0);
    expect(out.join('')).toMatch(/\*\*UNFINISHED MERGE\*\*: dsbench merge of run group night-2 .* is still copying its shards or was stopped while it did/);
    expect(out.join('')).not.toContain('Merged from all');
  });
});
