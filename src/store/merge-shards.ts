import { createHash } from 'node:crypto';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { UsageError } from '../errors/errors.js';
import { openStore } from './store.js';

// `dsbench merge`'s first half: the shard runs each given database holds, checked and grouped into the runs
// they were split from (merge.ts copies them).

export interface ShardRun {
  file: string;
  runId: number;
  groupId: string;
  groupLabel: string;
  shardIndex: number;
  shardCount: number;
  label: string | null;
  suiteName: string;
  suitePath: string;
  suiteHash: string;
  dsbenchVersion: string;
  optionsJson: string;
  startedAt: string;
  endedAt: string | null;
  status: string;
  /** Targets as stored, emulated ones without their URL (a port of a process gone with its job). */
  targetsKey: string;
  items: number;
  fingerprint: string;
}


export function checkPaths(sources: readonly string[], into: string): string {
  if (sources.length === 0) throw new UsageError('give the shard databases to merge, e.g. dsbench merge shard-*.db --into merged.db');
  const seen = new Map<string, string>();
  for (const file of sources) {
    if (!existsSync(file)) throw new UsageError(`no database at ${file}: pass the files each shard's dsbench run --db wrote`);
    if (statSync(file).isDirectory()) throw new UsageError(`${file} is a folder, not a shard database`);
    const real = realpathSync(file);
    if (seen.has(real)) throw new UsageError(`${file} is given twice (also as ${seen.get(real)}); pass each shard database once`);
    seen.set(real, file);
  }
  const target = existsSync(into) ? realpathSync(into) : into;
  if (seen.has(target)) throw new UsageError(`--into ${into} is also one of the shard databases; merge into another file`);
  return into;
}

export function readShardRuns(file: string): ShardRun[] {
  // openStore upgrades a shard written by an older schema, so its columns are the target's.
  const store = openStore(file);
  try {
    const db = store.db;
    const runs = db
      .prepare(
        `SELECT id AS runId, group_id AS groupId, group_label AS groupLabel, shard_index AS shardIndex, shard_count AS shardCount,
          label, suite_name AS suiteName, suite_path AS suitePath, suite_hash AS suiteHash, dsbench_version AS dsbenchVersion,
          options_json AS optionsJson, started_at AS startedAt, ended_at AS endedAt, status
        FROM runs WHERE shard_index IS NOT NULL ORDER BY id`,
      )
      .all() as Array<Omit<ShardRun, 'file' | 'targetsKey' | 'items' | 'fingerprint'>>;
    if (runs.length === 0) {
      const all = db.prepare('SELECT count(*) FROM runs').pluck().get() as number;
      throw new UsageError(`${file} holds no shard (${all} run${all === 1 ? '' : 's'}, none run with --shard); shards are recorded by dsbench run SUITE --shard i/n`);
    }
    const targets = db.prepare('SELECT name, url, api, emulated FROM targets WHERE run_id = ? ORDER BY rowid');
    const counts = db.prepare(
      `SELECT (SELECT count(*) FROM items WHERE run_id = @id) AS items,
        (SELECT count(*) FROM items WHERE run_id = @id AND status = 'done') AS done,
        (SELECT count(*) FROM turns WHERE run_id = @id) AS turns,
        (SELECT count(*) FROM searches WHERE run_id = @id) AS searches,
        (SELECT count(*) FROM expectations WHERE run_id = @id) AS expectations`,
    );
    return runs.map((run) => {
      const rows = targets.all(run.runId) as Array<{ name: string; url: string; api: string; emulated: number }>;
      const targetsKey = JSON.stringify(rows.map((t) => [t.name, t.emulated ? 'emulated' : t.url, t.api]));
      const c = counts.get({ id: run.runId }) as Record<string, number>;
      // What a repeated merge compares: the same shard run, in the same state, gives the same print.
      const fingerprint = hash(JSON.stringify([run.groupId, run.shardIndex, run.startedAt, run.endedAt, run.status, c]));
      return { ...run, file, targetsKey, items: c.items!, fingerprint };
    });
  } finally {
    store.close();
  }
}

export interface Group {
  id: string;
  label: string;
  count: number;
  shards: ShardRun[];
  missing: number[];
}

export function where(s: ShardRun): string {
  return `${s.file} run ${s.runId}`;
}

export function groupShards(shards: ShardRun[], allowPartial: boolean): Group[] {
  const byLabel = new Map<string, ShardRun[]>();
  for (const s of shards) byLabel.set(s.groupLabel, [...(byLabel.get(s.groupLabel) ?? []), s]);
  const groups: Group[] = [];
  for (const [label, members] of byLabel) {
    const first = members[0]!;
    const named = label === '' ? 'with no --group' : `of --group ${label}`;
    for (const s of members) {
      const differs = differenceOf(first, s);
      if (differs) throw new UsageError(`the shards ${named} are not of one run: ${differs} (${where(first)} vs ${where(s)}); merge only shards of one dsbench run --shard command line`);
    }
    const byIndex = new Map<number, ShardRun>();
    for (const s of members) {
      const other = byIndex.get(s.shardIndex);
      if (other) {
        throw new UsageError(
          `shard ${s.shardIndex}/${s.shardCount} ${named} is given twice: ${where(other)} and ${where(s)}. ` +
            'Pass each shard once; if these are two different nightlies, give each its own --group (e.g. the CI pipeline id)',
        );
      }
      byIndex.set(s.shardIndex, s);
    }
    const missing: number[] = [];
    for (let i = 1; i <= first.shardCount; i++) if (!byIndex.has(i)) missing.push(i);
    if (missing.length > 0 && !allowPartial) {
      throw new UsageError(
        `shard${missing.length === 1 ? '' : 's'} ${missing.join(', ')} of ${first.shardCount} ${named} ${missing.length === 1 ? 'is' : 'are'} missing ` +
          `(given: ${[...byIndex.keys()].sort((a, b) => a - b).join(', ')}); pass their databases, or --allow-partial to merge what there is (the run is then marked partial)`,
      );
    }
    groups.push({ id: first.groupId, label, count: first.shardCount, shards: [...byIndex.values()].sort((a, b) => a.shardIndex - b.shardIndex), missing });
  }
  return groups;
}

/** Why two shards cannot be parts of one run, or undefined when they can. */
function differenceOf(a: ShardRun, b: ShardRun): string | undefined {
  if (a.suiteHash !== b.suiteHash) return `they ran different suite files (${a.suiteName} sha256 ${a.suiteHash.slice(0, 12)} vs ${b.suiteName} sha256 ${b.suiteHash.slice(0, 12)})`;
  if (a.targetsKey !== b.targetsKey) return `they ran on different targets (${a.targetsKey} vs ${b.targetsKey})`;
  if (a.shardCount !== b.shardCount) return `they split the suite differently (--shard ${a.shardIndex}/${a.shardCount} vs ${b.shardIndex}/${b.shardCount})`;
  if (a.optionsJson !== b.optionsJson) return `they ran with different settings (${a.optionsJson} vs ${b.optionsJson})`;
  if (a.dsbenchVersion !== b.dsbenchVersion) return `they ran different dsbench versions (${a.dsbenchVersion} vs ${b.dsbenchVersion})`;
  if (a.groupId !== b.groupId) return `their run group ids differ (${a.groupId} vs ${b.groupId})`;
  return undefined;
}

/**
 * A shard whose process is gone while it was running did not complete, and a run without some of its
 * shards did not run the whole suite: either way the merged run says aborted, never completed.
 */

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
