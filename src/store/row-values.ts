import type Database from 'better-sqlite3';
import { type Columns, selectList } from './columns.js';

// A query's rows as arrays of values, in the order of its column table. better-sqlite3 (on Node 20) builds
// a row through V8's generic element store, one call per value: about a sixth of the time it takes to read
// an export's rows. A SQL function's arguments come to JavaScript in one call, so the query hands each
// row's values to one and returns the sequence number of the row handed over. Each row is taken as soon
// as its step returns, so two reads on one connection may interleave. When the plan sorts (SQLite would
// then evaluate rows before it returns them), plain rows are read instead.

/** A connection's row function: the values of the row it was last handed, and how many it has been handed. */
interface RowFunction {
  name: string;
  row: unknown[];
  handed: number;
}

const rowFunctions = new WeakMap<Database.Database, RowFunction>();

/** Registered at a connection's first read, before any statement of it is read (a busy connection takes no new function). */
function rowFunctionOf(db: Database.Database): RowFunction {
  let fn = rowFunctions.get(db);
  if (fn === undefined) {
    const registered: RowFunction = { name: 'dsbench_export_row', row: [], handed: 0 };
    db.function(registered.name, { varargs: true, deterministic: false }, (...values: unknown[]) => {
      registered.row = values;
      return ++registered.handed;
    });
    rowFunctions.set(db, (fn = registered));
  }
  return fn;
}

/** `SELECT <columns> <rest>`, or with `rowFunction` one term: that SQL function called with every column as its arguments. */
export function selectSql(columns: Columns, rest: string, rowFunction?: string): string {
  const select = rowFunction === undefined ? selectList(columns) : `${rowFunction}(${columns.map((c) => c.name).join(',\n      ')})`;
  return `SELECT ${select}
    ${rest}`;
}

/** The rows of `SELECT <columns> <rest>` as value arrays (a row function's array is handed over as it is: read it before the next). */
export function* rowValues(db: Database.Database, columns: Columns, rest: string, params: unknown[]): Generator<readonly unknown[]> {
  const fn = rowFunctionOf(db);
  const plainSql = selectSql(columns, rest);
  // A sort of the outer query (not of an aggregate inside a subquery) is a step at the top of the plan.
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${plainSql}`).all(...params) as Array<{ parent: number; detail: string }>;
  if (plan.some((step) => step.parent === 0 && step.detail.includes('TEMP B-TREE'))) {
    yield* db.prepare(plainSql).raw(true).iterate(...params) as IterableIterator<unknown[]>;
    return;
  }
  for (const sequence of db.prepare(selectSql(columns, rest, fn.name)).pluck(true).iterate(...params) as IterableIterator<number>) {
    if (sequence !== fn.handed) throw new Error(`internal error: the query returned row ${sequence} after handing over row ${fn.handed}`);
    yield fn.row;
  }
}
