import type Database from 'better-sqlite3';
import { type RowOf, decoder, pick, selectList } from './columns.js';
import { parseExpectations } from './item-readers.js';
import { type StoredTurn } from './item-rows.js';
import { FOLLOWUPS, SOURCES, TURNS } from './tables.js';

// What the results viewer reads: one page of a run's items, filtered and sorted in SQL (a run of 100,000
// items is never read whole to show 50 of them), an item with its turns, and the same question in other runs.

export const ITEM_SORTS = ['position', 'id', 'latency', 'credits', 'state'] as const;
export type ItemSort = (typeof ITEM_SORTS)[number];

export interface ItemFilter {
  /** An item's status or outcome (`completed`, `error`, `pending`, ...). */
  state?: string | undefined;
  tag?: string | undefined;
  /** Items whose expectations all passed, or some failed. */
  check?: 'passed' | 'failed' | undefined;
  target?: string | undefined;
  /** Text in a turn's question or answer (case-insensitive). */
  text?: string | undefined;
}

export interface ItemPageQuery extends ItemFilter {
  sort: ItemSort;
  descending: boolean;
  offset: number;
  limit: number;
}

export interface ItemListRow {
  key: string;
  id: string;
  repeat: number;
  target: string;
  kind: string;
  state: string;
  tags: string[];
  checksFailed: number;
  checks: number;
  serverMs: number | null;
  credits: number | null;
  question: string | null;
  endedAt: string | null;
  /** The item's trace link (run --trace): its create's or its search's trace, as the reports pick it. */
  traceUrl: string | null;
}

/** SQL orders of the sorts the database does itself; latency and credits sort by keys kept per run (sortKeys). */
const SORT_SQL: Record<Exclude<ItemSort, 'latency' | 'credits'>, string> = {
  position: 'i.position',
  id: 'i.suite_item_id, i.repeat',
  state: 'coalesce(i.outcome, i.status), i.position',
};

/**
 * An item's total server time (a search's duration) and credits, by its position in the run: NaN where not
 * measured. Summing them per item for every page would read every turn of the run each time.
 */
export interface SortKeys {
  latency: Float64Array;
  credits: Float64Array;
}

export function sortKeys(db: Database.Database, runId: number): SortKeys {
  const size = ((db.prepare('SELECT max(position) FROM items WHERE run_id = ?').pluck().get(runId) as number | null) ?? -1) + 1;
  const keys: SortKeys = { latency: new Float64Array(size).fill(Number.NaN), credits: new Float64Array(size).fill(Number.NaN) };
  const rows = db
    .prepare(
      `SELECT i.position, t.ms, t.credits FROM (SELECT item_key, sum(server_ms) AS ms, sum(credits) AS credits FROM turns WHERE run_id = @runId GROUP BY item_key) t
         JOIN items i ON i.run_id = @runId AND i.key = t.item_key
       UNION ALL SELECT i.position, s.duration_ms, NULL FROM searches s JOIN items i ON i.run_id = @runId AND i.key = s.item_key WHERE s.run_id = @runId`,
    )
    .raw();
  for (const [position, ms, credits] of rows.iterate({ runId }) as Iterable<[number, number | null, number | null]>) {
    if (ms !== null) keys.latency[position] = ms;
    if (credits !== null) keys.credits[position] = credits;
  }
  return keys;
}

function whereOf(filter: ItemFilter): string {
  const parts = ['i.run_id = @runId'];
  if (filter.state) parts.push('coalesce(i.outcome, i.status) = @state');
  if (filter.target) parts.push('i.target = @target');
  if (filter.tag) parts.push('EXISTS (SELECT 1 FROM json_each(i.tags_json) WHERE value = @tag)');
  // A list of the run's failing keys, made once, not a lookup per item: ten times faster at 100,000 items.
  const failing = 'SELECT item_key FROM expectations WHERE run_id = @runId AND passed = 0';
  if (filter.check === 'failed') parts.push(`i.key IN (${failing})`);
  if (filter.check === 'passed') parts.push(`i.key IN (SELECT item_key FROM expectations WHERE run_id = @runId) AND i.key NOT IN (${failing})`);
  if (filter.text) {
    parts.push(
      `(i.suite_item_id LIKE @text ESCAPE '\\' OR EXISTS (SELECT 1 FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key AND (t.text LIKE @text ESCAPE '\\' OR t.answer LIKE @text ESCAPE '\\'))
        OR EXISTS (SELECT 1 FROM searches s WHERE s.run_id = i.run_id AND s.item_key = i.key AND s.query LIKE @text ESCAPE '\\'))`,
    );
  }
  return parts.join(' AND ');
}

function paramsOf(runId: number, filter: ItemFilter): Record<string, unknown> {
  return {
    runId,
    state: filter.state ?? null,
    target: filter.target ?? null,
    tag: filter.tag ?? null,
    text: filter.text ? `%${filter.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null,
  };
}

/** The positions of one page of matching items, in order, and how many match. */
function pagePositions(db: Database.Database, runId: number, query: ItemPageQuery, keys: () => SortKeys): { positions: number[]; total: number } {
  const where = whereOf(query);
  const params = paramsOf(runId, query);
  const used = (sql: string) => Object.fromEntries(Object.entries(params).filter(([k]) => sql.includes(`@${k}`)));
  const sign = query.descending ? -1 : 1;
  if (query.sort === 'latency' || query.sort === 'credits') {
    const sql = `SELECT i.position FROM items i WHERE ${where}`;
    const matching = Int32Array.from(db.prepare(sql).pluck().all(used(sql)) as number[]);
    const key = keys()[query.sort];
    // Unmeasured last whatever the direction, then plan order.
    matching.sort((a, b) => {
      const x = key[a] ?? Number.NaN;
      const y = key[b] ?? Number.NaN;
      if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) === Number.isNaN(y) ? a - b : Number.isNaN(x) ? 1 : -1;
      return x === y ? a - b : sign * (x - y);
    });
    return { positions: [...matching.subarray(query.offset, query.offset + query.limit)], total: matching.length };
  }
  const countSql = `SELECT count(*) FROM items i WHERE ${where}`;
  const total = db.prepare(countSql).pluck().get(used(countSql)) as number;
  const order = SORT_SQL[query.sort].split(', ').map((c) => `${c} ${query.descending ? 'DESC' : 'ASC'}`).join(', ');
  // Only positions are sorted: the page's columns are read for its 50 rows alone.
  const sql = `SELECT i.position FROM items i WHERE ${where} ORDER BY ${order}, i.position LIMIT @limit OFFSET @offset`;
  return { positions: db.prepare(sql).pluck().all({ ...used(sql), limit: query.limit, offset: query.offset }) as number[], total };
}

/** One page of a run's items and how many match the filter; `keys` gives the run's sort keys when a sort needs them. */
export function itemPage(db: Database.Database, runId: number, query: ItemPageQuery, keys: () => SortKeys = () => sortKeys(db, runId)): { rows: ItemListRow[]; total: number } {
  const { positions, total } = pagePositions(db, runId, query, keys);
  const sql = `SELECT i.position, i.key, i.suite_item_id AS id, i.repeat, i.target, i.kind, coalesce(i.outcome, i.status) AS state, i.tags_json AS tags, i.ended_at AS endedAt,
      (SELECT count(*) FROM expectations e WHERE e.run_id = i.run_id AND e.item_key = i.key) AS checks,
      (SELECT count(*) FROM expectations e WHERE e.run_id = i.run_id AND e.item_key = i.key AND e.passed = 0) AS checksFailed,
      coalesce((SELECT sum(t.server_ms) FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key), (SELECT s.duration_ms FROM searches s WHERE s.run_id = i.run_id AND s.item_key = i.key)) AS server_ms,
      (SELECT sum(t.credits) FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key) AS credits,
      coalesce((SELECT t.text FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key ORDER BY t.turn LIMIT 1), (SELECT s.query FROM searches s WHERE s.run_id = i.run_id AND s.item_key = i.key)) AS question,
      (SELECT x.url FROM traces x WHERE x.run_id = i.run_id AND x.item_key = i.key ORDER BY x.operation NOT IN ('create', 'search'), x.turn, x.rowid LIMIT 1) AS traceUrl
    FROM items i WHERE i.run_id = @runId AND i.position IN (SELECT value FROM json_each(@positions))`;
  type Read = Omit<ItemListRow, 'tags' | 'serverMs'> & { position: number; tags: string; server_ms: number | null };
  const byPosition = new Map((db.prepare(sql).all({ runId, positions: JSON.stringify(positions) }) as Read[]).map((r) => [r.position, r]));
  const rows = positions.flatMap((p) => {
    const found = byPosition.get(p);
    if (!found) return [];
    const { tags, server_ms, position: _, ...r } = found;
    return [{ ...r, tags: JSON.parse(tags) as string[], serverMs: server_ms }];
  });
  return { total, rows };
}

/** What the filters offer for a run: its states, tags and targets, with counts. */
export function itemFacets(db: Database.Database, runId: number): { states: Array<[string, number]>; tags: string[]; targets: string[] } {
  const states = db
    .prepare('SELECT coalesce(outcome, status) AS k, count(*) AS n FROM items WHERE run_id = ? GROUP BY k ORDER BY n DESC, k')
    .raw()
    .all(runId) as Array<[string, number]>;
  // The distinct tag lists are few however many items share them: parsed here, not per item in SQL.
  const lists = db.prepare('SELECT DISTINCT tags_json FROM items WHERE run_id = ?').pluck().all(runId) as string[];
  const tags = [...new Set(lists.flatMap((l) => JSON.parse(l) as string[]))].sort();
  const targets = db.prepare('SELECT name FROM targets WHERE run_id = ? ORDER BY rowid').pluck().all(runId) as string[];
  return { states, tags, targets };
}

const SOURCE_READ = pick(SOURCES, 'turn', 'type', 'link', 'label');
const FOLLOWUP_READ = pick(FOLLOWUPS, 'turn', 'text');
const readTurn = decoder(TURNS);
const readSource = decoder(SOURCE_READ);
const readFollowup = decoder(FOLLOWUP_READ);

export interface ViewedItem {
  key: string;
  id: string;
  repeat: number;
  target: string;
  kind: string;
  status: string;
  outcome: string | null;
  message: string | null;
  tags: string[];
  startedAt: string | null;
  endedAt: string | null;
  conversationRef: string | null;
  expectations: ReturnType<typeof parseExpectations>;
  turns: StoredTurn[];
  search: { query: string; verdict: string; matchCount: number | null; exhaustive: boolean | null; durationMs: number | null; alert: string | null; error: string | null } | null;
}

/** One item of a run with everything recorded of it; undefined when the run has no such item. */
export function viewedItem(db: Database.Database, runId: number, key: string): ViewedItem | undefined {
  const item = db
    .prepare(
      `SELECT key, suite_item_id AS id, repeat, target, kind, status, outcome, message, tags_json AS tags, started_at AS startedAt, ended_at AS endedAt,
        conversation_ref AS conversationRef FROM items WHERE run_id = ? AND key = ?`,
    )
    .get(runId, key) as (Omit<ViewedItem, 'tags' | 'expectations' | 'turns' | 'search'> & { tags: string }) | undefined;
  if (!item) return undefined;
  const expectationRows = db.prepare('SELECT name, passed, reason, turn FROM expectations WHERE run_id = ? AND item_key = ? ORDER BY position').all(runId, key) as Array<{
    name: string;
    passed: number;
    reason: string;
    turn: number | null;
  }>;
  const sources = db.prepare(`SELECT ${selectList(SOURCE_READ)} FROM sources WHERE run_id = ? AND item_key = ? ORDER BY turn, position`).all(runId, key).map(readSource);
  const followups = db.prepare(`SELECT ${selectList(FOLLOWUP_READ)} FROM suggested_followups WHERE run_id = ? AND item_key = ? ORDER BY turn, position`).all(runId, key).map(readFollowup);
  const turns = db
    .prepare(`SELECT ${selectList(TURNS)} FROM turns WHERE run_id = ? AND item_key = ? ORDER BY turn`)
    .all(runId, key)
    .map((row) => {
      const turn = readTurn(row) as StoredTurn;
      turn.sources = sources.filter((s) => s.turn === turn.turn).map(({ type, link, label }) => ({ type, link, label }));
      turn.suggestedFollowups = followups.filter((f) => f.turn === turn.turn).map((f) => f.text);
      return turn;
    });
  const search = db
    .prepare('SELECT query, verdict, match_count AS matchCount, exhaustive, duration_ms AS durationMs, alert, error FROM searches WHERE run_id = ? AND item_key = ?')
    .get(runId, key) as (Omit<NonNullable<ViewedItem['search']>, 'exhaustive'> & { exhaustive: number | null }) | undefined;
  const { tags, ...rest } = item;
  return {
    ...rest,
    tags: JSON.parse(tags) as string[],
    expectations: expectationRows.map((e) => ({ name: e.name, passed: e.passed === 1, reason: e.reason, ...(e.turn === null ? {} : { turn: e.turn }) })) as ReturnType<typeof parseExpectations>,
    turns,
    search: search ? { ...search, exhaustive: search.exhaustive === null ? null : search.exhaustive === 1 } : null,
  };
}

export type OtherRunRow = { runId: number; label: string | null; startedAt: string; key: string; state: string };

/** The same question (suite id and target) in the other runs of the suite, newest first. */
export function sameQuestionElsewhere(db: Database.Database, runId: number, id: string, target: string, limit = 30): OtherRunRow[] {
  return db
    .prepare(
      `SELECT r.id AS runId, r.label, r.started_at AS startedAt, i.key, coalesce(i.outcome, i.status) AS state
       FROM items i JOIN runs r ON r.id = i.run_id
       WHERE r.suite_name = (SELECT suite_name FROM runs WHERE id = @runId) AND i.suite_item_id = @id AND i.target = @target AND i.run_id <> @runId
       ORDER BY r.id DESC, i.repeat LIMIT @limit`,
    )
    .all({ runId, id, target, limit }) as OtherRunRow[];
}

/** Counts that change while a run records: items done and items in all, by status. */
export function runProgress(db: Database.Database, runId: number): { items: number; done: number; status: string; endedAt: string | null } | undefined {
  return db
    .prepare(
      `SELECT (SELECT count(*) FROM items WHERE run_id = r.id) AS items, (SELECT count(*) FROM items WHERE run_id = r.id AND status = 'done') AS done,
        r.status, r.ended_at AS endedAt FROM runs r WHERE r.id = ?`,
    )
    .get(runId) as { items: number; done: number; status: string; endedAt: string | null } | undefined;
}

/** Per question (target and suite id): its items whose checks all passed, and its items with checks. */
export function checkedQuestions(db: Database.Database, runId: number): Array<{ target: string; passed: number; checked: number }> {
  // Grouped first by the expectations' own key order, then joined to the items by their unique key.
  return db
    .prepare(
      `SELECT i.target, sum(e.allPassed) AS passed, count(*) AS checked
       FROM (SELECT item_key, min(passed) AS allPassed FROM expectations WHERE run_id = @runId GROUP BY item_key) e
       JOIN items i ON i.run_id = @runId AND i.key = e.item_key
       WHERE i.tags_json NOT LIKE '%"quarantine"%'
       GROUP BY i.target, i.suite_item_id`,
    )
    .all({ runId }) as Array<{ target: string; passed: number; checked: number }>;
}

export type TurnRowOf = RowOf<typeof TURNS>;

/**
 * What changes when a run's figures do: its status, end and grades (a finished run is graded later), and while
 * it records, every commit (`data_version`). A stamp that is unchanged lets the viewer keep what it counted.
 */
export function runStamp(db: Database.Database, runId: number): string {
  const row = db.prepare('SELECT status, ended_at AS endedAt, (SELECT count(*) FROM grades WHERE run_id = r.id) AS grades FROM runs r WHERE id = ?').get(runId) as
    | { status: string; endedAt: string | null; grades: number }
    | undefined;
  if (!row) return 'gone';
  const live = row.status === 'running' ? db.pragma('data_version', { simple: true }) : '';
  return `${row.status}|${row.endedAt}|${row.grades}|${live}`;
}
