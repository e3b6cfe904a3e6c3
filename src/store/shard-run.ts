import type Database from 'better-sqlite3';

export interface ShardRun {
  id: number;
  status: string;
}

/**
 * The newest run recorded for shard `index`/`count` of the run group labelled `groupLabel`, unfinished first:
 * what `run --resume-or-start` resumes, so a restarted pod with its disk asks nothing twice.
 */
export function shardRunOf(db: Database.Database, groupLabel: string, index: number, count: number): ShardRun | undefined {
  return db
    .prepare(
      `SELECT id, status FROM runs WHERE group_label = ? AND shard_index = ? AND shard_count = ?
       ORDER BY status = 'completed', id DESC LIMIT 1`,
    )
    .get(groupLabel, index, count) as ShardRun | undefined;
}
