import Database from 'better-sqlite3';
import { DsbenchError, RunHeldError, UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import type { RunLease } from '../model/lease.js';
import { acquireLease } from './lease.js';
import { openStore } from './store.js';
import { type Group, type ShardRun, checkPaths, groupShards, readShardRuns, where } from './merge-shards.js';

// `dsbench merge`: the shards of a run split across machines (`dsbench run --shard i/n`), each recorded
// in its own database, become one run in a target database, as if one machine had run it. Rows are
// copied inside SQLite (ATTACH, INSERT ... SELECT over rowid ranges, one transaction per batch), so
// memory stays bounded whatever the size of the shards and no row passes through JavaScript.

export interface MergeOptions {
  sources: readonly string[];
  into: string;
  /** Merge what there is when shards are missing; the run is marked partial. */
  allowPartial?: boolean | undefined;
  /** Rows per transaction. */
  batchRows?: number | undefined;
  log?: ((message: string) => void) | undefined;
}

export interface MergedRun {
  groupId: string;
  groupLabel: string;
  runId: number;
  shardCount: number;
  /** Shard indexes merged, ascending. */
  shards: number[];
  missing: number[];
  partial: boolean;
  status: string;
  items: number;
  /** The target already held exactly this merge: nothing was written. */
  alreadyMerged: boolean;
}

const DEFAULT_BATCH_ROWS = 20_000;

/** A merge holds its run's lease while it copies, as a run does; it beats once per batch. */
const MERGE_LEASE = { staleMs: 60_000 };

/** Run-level tables the merge writes itself, or must not carry (a lease belongs to a live process). */
const RUN_LEVEL = new Set(['runs', 'targets', 'run_shards', 'run_leases', 'quota_snapshots', 'unowned_conversations', 'lost_creates']);

export function mergeShards(options: MergeOptions): MergedRun[] {
  const log = options.log ?? (() => undefined);
  const into = checkPaths(options.sources, options.into);
  const shards = options.sources.flatMap((file) => readShardRuns(file));
  const groups = groupShards(shards, options.allowPartial ?? false);
  const store = openStore(options.into);
  try {
    return groups.map((group) => mergeGroup(store.db, into, group, options.batchRows ?? DEFAULT_BATCH_ROWS, log));
  } finally {
    store.close();
  }
}

function mergedStatus(statuses: string[], partial: boolean): string {
  if (statuses.includes('failed')) return 'failed';
  if (partial || statuses.some((s) => s !== 'completed')) return 'aborted';
  return 'completed';
}

function mergeGroup(db: Database.Database, into: string, group: Group, batchRows: number, log: (m: string) => void): MergedRun {
  const name = group.label === '' ? `group ${group.id}` : `group ${group.label} (${group.id})`;
  const result = (runId: number, alreadyMerged: boolean): MergedRun => ({
    groupId: group.id,
    groupLabel: group.label,
    runId,
    shardCount: group.count,
    shards: group.shards.map((s) => s.shardIndex),
    missing: group.missing,
    partial: group.missing.length > 0,
    status: mergedStatus(group.shards.map((s) => s.status), group.missing.length > 0),
    items: group.shards.reduce((sum, s) => sum + s.items, 0),
    alreadyMerged,
  });
  const claim = storage(into, () => claimRun(db, into, group, name, log));
  if (claim.alreadyMerged) return result(claim.runId, true);
  const { runId, lease } = claim;
  const beat = () => {
    const lost = lease.heartbeat();
    if (lost !== undefined) throw new DsbenchError(`${into}: the merge of ${name} lost its lease on run ${runId}: ${lost}; merge again once that process has ended`, ExitCode.runHeld);
  };
  try {
    for (const shard of group.shards) copyShard(db, into, shard, runId, batchRows, log, beat);
    storage(into, () => finish(db, runId, group));
  } catch (error) {
    // Best effort: leave no half-merged run behind (a later merge would also replace one).
    try {
      db.prepare('DELETE FROM runs WHERE id = ?').run(runId);
    } catch {
      // The original error says more than this one.
    }
    throw error;
  } finally {
    lease.release();
  }
  const merged = result(runId, false);
  log(`${into}: merged ${name}, shards ${merged.shards.join(', ')} of ${group.count}, into run ${runId} (${merged.items} items, ${merged.status}${merged.partial ? ', partial' : ''})`);
  return merged;
}

type Claim = { alreadyMerged: true; runId: number } | { alreadyMerged: false; runId: number; lease: RunLease };

/**
 * In one write transaction: finds the group's merged run in the target and either reports it merged, or
 * replaces an interrupted merge, or refuses; then records a new merged run (`running` while it is copied)
 * and takes its lease. A merge still copying holds that lease, so a second merge of the group into the
 * same database is refused (exit 7) instead of taking the first's run for an interrupted one.
 */
function claimRun(db: Database.Database, into: string, group: Group, name: string, log: (m: string) => void): Claim {
  return withAttached(db, group.shards[0]!.file, () =>
    db
      .transaction((): Claim => {
        const existing = db.prepare('SELECT id, status FROM runs WHERE group_id = ? AND shard_index IS NULL').get(group.id) as { id: number; status: string } | undefined;
        if (existing && existing.status === 'running') {
          // Only a merge leaves a merged run running (a merged run's own status is never that).
          const lease = leaseOf(db, into, existing.id, name);
          if (lease.takeover !== undefined) log(`${into}: ${lease.takeover}`);
          log(`${into}: run ${existing.id} is an interrupted merge of ${name}; deleting it and merging again`);
          db.prepare('DELETE FROM runs WHERE id = ?').run(existing.id);
        } else if (existing) {
          const stored = db.prepare('SELECT shard_index AS shardIndex, fingerprint FROM run_shards WHERE run_id = ? ORDER BY shard_index').all(existing.id) as Array<{
            shardIndex: number;
            fingerprint: string;
          }>;
          const same = stored.length === group.shards.length && stored.every((s, i) => s.shardIndex === group.shards[i]!.shardIndex && s.fingerprint === group.shards[i]!.fingerprint);
          if (same) {
            log(`${into}: ${name} is already merged as run ${existing.id}; nothing to do`);
            return { alreadyMerged: true, runId: existing.id };
          }
          throw new UsageError(
            `${into} already holds ${name} as run ${existing.id}, merged from other shard runs (shards ${stored.map((s) => s.shardIndex).join(', ')} of ${group.count}, or their state changed since); ` +
              'merge into another database (a run group is merged once per database)',
          );
        }
        const runId = insertMergedRun(db, group);
        return { alreadyMerged: false, runId, lease: leaseOf(db, into, runId, name) };
      })
      .immediate(),
  );
}

function leaseOf(db: Database.Database, into: string, runId: number, name: string): RunLease {
  try {
    return acquireLease(db, runId, MERGE_LEASE);
  } catch (error) {
    if (!(error instanceof RunHeldError)) throw error;
    const { pid, host, acquiredAt } = error.holder;
    throw new DsbenchError(
      `${into}: ${name} is being merged by another dsbench (pid ${pid} on host ${host}) since ${acquiredAt}; wait for it to end, then merge again (a repeat of a finished merge changes nothing)`,
      ExitCode.runHeld,
      { cause: error },
    );
  }
}

/** Records the merged run and its targets (the first shard attached as `src`), inside the caller's transaction. */
function insertMergedRun(db: Database.Database, group: Group): number {
  const first = group.shards[0]!;
  const labels = new Set(group.shards.map((s) => s.label));
  const label = labels.size === 1 ? first.label : group.label || null;
  const started = group.shards.map((s) => s.startedAt).sort()[0]!;
  const ends = group.shards.map((s) => s.endedAt);
  const ended = ends.includes(null) ? null : (ends as string[]).sort().at(-1)!;
  const runId = Number(
    db
      .prepare(
        `INSERT INTO runs (label, suite_name, suite_path, suite_hash, dsbench_version, options_json, started_at, ended_at, status,
          group_id, group_label, shard_index, shard_count, partial)
        VALUES (@label, @suiteName, @suitePath, @suiteHash, @dsbenchVersion, @optionsJson, @started, @ended, 'running',
          @groupId, @groupLabel, NULL, @count, @partial)`,
      )
      .run({
        label,
        suiteName: first.suiteName,
        suitePath: first.suitePath,
        suiteHash: first.suiteHash,
        dsbenchVersion: first.dsbenchVersion,
        optionsJson: first.optionsJson,
        started,
        ended,
        groupId: group.id,
        groupLabel: group.label,
        count: group.count,
        partial: group.missing.length > 0 ? 1 : 0,
      }).lastInsertRowid,
  );
  // The targets of the first shard: all shards have the same (an emulated one keeps the first's URL).
  db.prepare(`INSERT INTO targets (run_id, name, url, api, emulated, emulator, product_version, product_version_error, product_version_on_resume) SELECT ?, name, url, api, emulated, emulator, product_version, product_version_error, product_version_on_resume FROM src.targets WHERE run_id = ? ORDER BY rowid`).run(runId, first.runId);
  return runId;
}

function finish(db: Database.Database, runId: number, group: Group): void {
  db.transaction(() => {
    const insert = db.prepare(
      `INSERT INTO run_shards (run_id, shard_index, source_file, source_run_id, status, started_at, ended_at, items, fingerprint)
      VALUES (@runId, @shardIndex, @file, @sourceRunId, @status, @startedAt, @endedAt, @items, @fingerprint)`,
    );
    for (const s of group.shards) {
      insert.run({ runId, shardIndex: s.shardIndex, file: s.file, sourceRunId: s.runId, status: s.status, startedAt: s.startedAt, endedAt: s.endedAt, items: s.items, fingerprint: s.fingerprint });
    }
    db.prepare('UPDATE runs SET status = ? WHERE id = ?').run(mergedStatus(group.shards.map((s) => s.status), group.missing.length > 0), runId);
  }).immediate();
}

/** Copies every row of one shard run into run `runId`: items, then each item-level table, then the run-level rows of its targets. */
function copyShard(db: Database.Database, into: string, shard: ShardRun, runId: number, batchRows: number, log: (m: string) => void, beat: () => void): void {
  withAttached(db, shard.file, () => {
    for (const table of ['items', ...itemLevelTables(db), 'quota_snapshots', 'unowned_conversations', 'lost_creates']) {
      const copied = copyTable(db, into, table, shard, runId, batchRows, beat);
      if (table === 'items') log(`${shard.file}: shard ${shard.shardIndex}/${shard.shardCount}, ${copied} items`);
    }
    // The judge's answers, keyed by model, prompt and inputs: re-grading the merged run reuses them instead
    // of asking (and paying) the judge again.
    storage(into, () =>
      db.exec(`INSERT OR IGNORE INTO main.judge_cache (model, prompt_hash, inputs_hash, content, prompt_tokens, completion_tokens, created_at)
        SELECT model, prompt_hash, inputs_hash, content, prompt_tokens, completion_tokens, created_at FROM src.judge_cache`),
    );
  });
}

/**
 * Tables of per-item rows (a run_id and an item_key column), parents before children: the shards' items
 * are disjoint, so these are a plain union. Tables added later (grades, ...) are carried the same way.
 */
function itemLevelTables(db: Database.Database): string[] {
  const names = (db.prepare(`SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).pluck().all() as string[]).filter(
    (name) => !RUN_LEVEL.has(name) && name !== 'items',
  );
  const itemLevel = names.filter((name) => {
    const columns = columnsOf(db, name).map((c) => c.name);
    return columns.includes('run_id') && columns.includes('item_key');
  });
  const ordered: string[] = [];
  const visit = (name: string) => {
    if (ordered.includes(name) || !itemLevel.includes(name)) return;
    const parents = db.prepare(`SELECT "table" FROM pragma_foreign_key_list(?)`).pluck().all(name) as string[];
    for (const parent of parents) if (parent !== name) visit(parent);
    ordered.push(name);
  };
  itemLevel.forEach(visit);
  return ordered;
}

interface Column {
  name: string;
  type: string;
  pk: number;
}

function columnsOf(db: Database.Database, table: string, schema = 'main'): Column[] {
  return db.prepare(`SELECT name, type, pk FROM pragma_table_info(?, ?)`).all(table, schema) as Column[];
}

function copyTable(db: Database.Database, into: string, table: string, shard: ShardRun, runId: number, batchRows: number, beat: () => void): number {
  const columns = columnsOf(db, table);
  const keys = columns.filter((c) => c.pk > 0);
  // An INTEGER PRIMARY KEY is the row's own id in its database: the target gives new ones.
  const own = keys.length === 1 && keys[0]!.type.toUpperCase() === 'INTEGER' ? keys[0]!.name : undefined;
  const copied = columns.map((c) => c.name).filter((name) => name !== 'run_id' && name !== own);
  const sourceColumns = new Set(columnsOf(db, table, 'src').map((c) => c.name));
  const absent = copied.filter((name) => !sourceColumns.has(name));
  if (absent.length > 0) throw new UsageError(`${shard.file}: table ${table} has no column ${absent.join(', ')}: it was written by another dsbench version than ${into}`);
  const list = copied.map((name) => `"${name}"`).join(', ');
  const withoutRowid = (db.prepare(`SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?`).pluck().get(table) as number | undefined) === 1;
  const insert = `INSERT INTO main."${table}" (run_id, ${list}) SELECT @runId, ${list} FROM src."${table}" WHERE +run_id = @sourceRunId`;
  let total = 0;
  if (withoutRowid) {
    return storage(into, () => db.transaction(() => db.prepare(insert).run({ runId, sourceRunId: shard.runId }).changes).immediate(), shard);
  }
  const range = db.prepare(`SELECT min(rowid) AS low, max(rowid) AS high FROM src."${table}" WHERE run_id = ?`).get(shard.runId) as { low: number | null; high: number | null };
  if (range.low === null || range.high === null) return 0;
  // `+run_id` keeps SQLite on the rowid range: by the run_id index each batch would scan the whole run.
  const batch = db.prepare(`${insert} AND rowid >= @from AND rowid < @to`);
  const copyBatch = db.transaction((from: number, to: number) => batch.run({ runId, sourceRunId: shard.runId, from, to }).changes).immediate;
  for (let from = range.low; from <= range.high; from += batchRows) {
    total += storage(into, () => copyBatch(from, from + batchRows), shard);
    storage(into, beat);
  }
  return total;
}

function withAttached<T>(db: Database.Database, file: string, work: () => T): T {
  db.prepare('ATTACH DATABASE ? AS src').run(file);
  try {
    return work();
  } finally {
    db.exec('DETACH DATABASE src');
  }
}

/**
 * Runs a write on the target. Two shards holding one item (a key, or a place in the plan) break a
 * uniqueness rule: that is overlapping shards. Any other SQLite failure is the target database's.
 */
function storage<T>(into: string, write: () => T, shard?: ShardRun): T {
  try {
    return write();
  } catch (error) {
    if (!(error instanceof Database.SqliteError)) throw error;
    if (shard && error.code.startsWith('SQLITE_CONSTRAINT')) {
      throw new UsageError(`${where(shard)} overlaps a shard merged before it (${error.message}); were these shards split with the same --shard count of one suite?`, { cause: error });
    }
    throw new DsbenchError(`writing the merged run into ${into} failed: ${error.message} (${error.code}); check the disk and that no other process writes there, then merge again`, ExitCode.storage, { cause: error });
  }
}
