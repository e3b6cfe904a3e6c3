import type Database from 'better-sqlite3';
import { type RowOf, binder, decoder, insertSql, selectList } from './columns.js';
import { BASELINES } from './tables.js';

// Baselines chosen by name: `dsbench baseline bless` writes a name, `blessed:<name>` reads it. Nothing here
// writes to the run a name points at.

export type BaselineRow = RowOf<typeof BASELINES>;

const readBaseline = decoder(BASELINES);
const bind = binder(BASELINES);
const UPSERT = insertSql('baselines', BASELINES, { keys: ['name'] });

/** Points `name` at a run, moving it if it named another; returns the run it named before, if any. */
export function blessRun(db: Database.Database, row: BaselineRow): { previous: number | null } {
  return db
    .transaction(() => {
      const previous = db.prepare('SELECT run_id FROM baselines WHERE name = ?').pluck().get(row.name) as number | undefined;
      db.prepare(UPSERT).run(bind(row));
      return { previous: previous ?? null };
    })
    .immediate();
}

/** Removes a name; false when there was none. The run it named stays as it was. */
export function dropBaseline(db: Database.Database, name: string): boolean {
  return db.prepare('DELETE FROM baselines WHERE name = ?').run(name).changes > 0;
}

/** Every name, alphabetically. */
export function listBaselines(db: Database.Database): BaselineRow[] {
  return db.prepare(`SELECT ${selectList(BASELINES)} FROM baselines ORDER BY name`).all().map(readBaseline);
}

export function findBaseline(db: Database.Database, name: string): BaselineRow | undefined {
  const row = db.prepare(`SELECT ${selectList(BASELINES)} FROM baselines WHERE name = ?`).get(name);
  return row === undefined ? undefined : readBaseline(row);
}
