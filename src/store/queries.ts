import type Database from 'better-sqlite3';
import type { ItemKind, ItemStatus, RunStatus } from '../runner/recorder.js';

// Read side for reports. Rows use camelCase and `null` for absent values (never 0). The iterators
// stream rows from SQLite; while one is open, this connection cannot write (better-sqlite3 rule).

export type RunSelector = number | 'latest' | string;

export interface RunRecord {
  id: number;
  label: string | null;
  suiteName: string;
  suitePath: string;
  suiteHash: string;
  dsbenchVersion: string;
  options: Record<string, unknown>;
  startedAt: string;
  endedAt: string | null;
  status: RunStatus;
}

export interface RunSummary {
  id: number;
  label: string | null;
  suiteName: string;
  targets: string[];
  startedAt: string;
  endedAt: string | null;
  status: RunStatus;
  items: number;
  /** Items by outcome; unfinished items count under their status (`pending`, `running`). */
  outcomes: Record<string, number>;
  /** Sum of credits over all turns; null when no turn reported any. */
  credits: number | null;
}

export interface ItemColumns {
  itemKey: string;
  kind: ItemKind;
  target: string;
  suiteItemId: string;
  repeat: number;
  tags: string[];
  itemStatus: ItemStatus;
  outcome: string | null;
}

export interface TurnRow extends ItemColumns {
  conversationRef: string | null;
  turn: number;
  text: string;
  questionId: string | null;
  state: string;
  errorCode: string | null;
  errorRawCode: string | null;
  errorMessage: string | null;
  errorTitle: string | null;
  errorDetails: string | null;
  errorRetryTime: string | null;
  clientError: string | null;
  title: string | null;
  answer: string | null;
  sentAt: string | null;
  observedEndAt: string | null;
  serverCreatedAt: string | null;
  serverUpdatedAt: string | null;
  serverMs: number | null;
  serverMsSource: string | null;
  wallMs: number | null;
  polls: number;
  timeMillis: number | null;
  toolCalls: number | null;
  totalInputTokens: number | null;
  cachedTokens: number | null;
  cacheCreationInputTokens: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  totalTokens: number | null;
  credits: number | null;
}

export interface SearchRow extends ItemColumns {
  query: string;
  params: Record<string, unknown>;
  verdict: string;
  matchCount: number | null;
  counted: number;
  countedByType: Record<string, number>;
  repositories: number;
  files: number;
  repositoriesCount: number | null;
  exhaustive: boolean | null;
  durationMs: number | null;
  wallMs: number;
  timeToFirstEventMs: number | null;
  timeToFirstMatchMs: number | null;
  skipped: Array<{ reason: string; title?: string; severity?: string }>;
  alert: string | null;
  error: string | null;
  httpStatus: number | null;
}

export interface ExpectationSummary {
  total: number;
  passed: number;
  failed: number;
  byName: Array<{ name: string; total: number; passed: number; failed: number }>;
  failures: Array<{ itemKey: string; target: string; suiteItemId: string; repeat: number; name: string; reason: string; turn: number | null }>;
}

const ITEM_COLUMNS = `i.key AS itemKey, i.kind, i.target, i.suite_item_id AS suiteItemId, i.repeat, i.tags_json AS tags,
  i.status AS itemStatus, i.outcome`;

const RUN_COLUMNS = `id, label, suite_name AS suiteName, suite_path AS suitePath, suite_hash AS suiteHash,
  dsbench_version AS dsbenchVersion, options_json AS options, started_at AS startedAt, ended_at AS endedAt, status`;

/** `12` selects run 12, `latest` the newest run, anything else the newest run with that label. */
export function parseRunSelector(text: string): RunSelector {
  return /^\d+$/.test(text) ? Number(text) : text;
}

export function findRun(db: Database.Database, selector: RunSelector): RunRecord | undefined {
  const row =
    typeof selector === 'number'
      ? db.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`).get(selector)
      : selector === 'latest'
        ? db.prepare(`SELECT ${RUN_COLUMNS} FROM runs ORDER BY id DESC LIMIT 1`).get()
        : db.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE label = ? ORDER BY id DESC LIMIT 1`).get(selector);
  if (!row) return undefined;
  const run = row as RunRecord & { options: string };
  return { ...run, options: JSON.parse(run.options) as Record<string, unknown> };
}

/** Newest first. */
export function listRuns(db: Database.Database, options: { limit?: number } = {}): RunSummary[] {
  const rows = db
    .prepare(
      `SELECT r.id, r.label, r.suite_name AS suiteName, r.started_at AS startedAt, r.ended_at AS endedAt, r.status,
        (SELECT json_group_array(name) FROM (SELECT name FROM targets WHERE run_id = r.id ORDER BY rowid)) AS targets,
        (SELECT count(*) FROM items WHERE run_id = r.id) AS items,
        (SELECT json_group_object(k, n) FROM
          (SELECT coalesce(outcome, status) AS k, count(*) AS n FROM items WHERE run_id = r.id GROUP BY k)) AS outcomes,
        (SELECT sum(credits) FROM turns WHERE run_id = r.id) AS credits
      FROM runs r ORDER BY r.id DESC LIMIT ?`,
    )
    .all(options.limit ?? -1) as Array<RunSummary & { targets: string; outcomes: string }>;
  return rows.map((r) => ({
    ...r,
    targets: JSON.parse(r.targets) as string[],
    outcomes: JSON.parse(r.outcomes) as Record<string, number>,
  }));
}

/** Every turn of a run with its item, in plan order then turn order. */
export function* iterateTurns(db: Database.Database, runId: number): Generator<TurnRow> {
  const statement = db.prepare(
    `SELECT ${ITEM_COLUMNS}, i.conversation_ref AS conversationRef,
      t.turn, t.text, t.question_id AS questionId, t.state, t.error_code AS errorCode, t.error_raw_code AS errorRawCode,
      t.error_message AS errorMessage, t.error_title AS errorTitle, t.error_details AS errorDetails,
      t.error_retry_time AS errorRetryTime, t.client_error AS clientError, t.title, t.answer, t.sent_at AS sentAt,
      t.observed_end_at AS observedEndAt, t.server_created_at AS serverCreatedAt, t.server_updated_at AS serverUpdatedAt,
      t.server_ms AS serverMs, t.server_ms_source AS serverMsSource, t.wall_ms AS wallMs, t.polls,
      t.time_millis AS timeMillis, t.tool_calls AS toolCalls, t.total_input_tokens AS totalInputTokens,
      t.cached_tokens AS cachedTokens, t.cache_creation_input_tokens AS cacheCreationInputTokens,
      t.prompt_tokens AS promptTokens, t.completion_tokens AS completionTokens, t.total_tokens AS totalTokens, t.credits
    FROM turns t JOIN items i ON i.run_id = t.run_id AND i.key = t.item_key
    WHERE t.run_id = ? ORDER BY i.position, t.turn`,
  );
  for (const row of statement.iterate(runId) as IterableIterator<TurnRow & { tags: string }>) {
    yield { ...row, tags: JSON.parse(row.tags) as string[] };
  }
}

/** Every search of a run with its item, in plan order. */
export function* iterateSearches(db: Database.Database, runId: number): Generator<SearchRow> {
  const statement = db.prepare(
    `SELECT ${ITEM_COLUMNS}, s.query, s.params_json AS params, s.verdict, s.match_count AS matchCount, s.counted,
      s.counted_by_type_json AS countedByType, s.repositories, s.files, s.repositories_count AS repositoriesCount,
      s.exhaustive, s.duration_ms AS durationMs, s.wall_ms AS wallMs, s.time_to_first_event_ms AS timeToFirstEventMs,
      s.time_to_first_match_ms AS timeToFirstMatchMs, s.skipped_json AS skipped, s.alert, s.error, s.http_status AS httpStatus
    FROM searches s JOIN items i ON i.run_id = s.run_id AND i.key = s.item_key
    WHERE s.run_id = ? ORDER BY i.position`,
  );
  type Raw = Omit<SearchRow, 'tags' | 'params' | 'countedByType' | 'skipped' | 'exhaustive'> & {
    tags: string;
    params: string;
    countedByType: string;
    skipped: string;
    exhaustive: number | null;
  };
  for (const row of statement.iterate(runId) as IterableIterator<Raw>) {
    yield {
      ...row,
      tags: JSON.parse(row.tags) as string[],
      params: JSON.parse(row.params) as Record<string, unknown>,
      countedByType: JSON.parse(row.countedByType) as Record<string, number>,
      skipped: JSON.parse(row.skipped) as SearchRow['skipped'],
      exhaustive: row.exhaustive === null ? null : row.exhaustive === 1,
    };
  }
}

export function expectationSummary(db: Database.Database, runId: number): ExpectationSummary {
  const byName = db
    .prepare(
      `SELECT name, count(*) AS total, sum(passed) AS passed, count(*) - sum(passed) AS failed
      FROM expectations WHERE run_id = ? GROUP BY name ORDER BY name`,
    )
    .all(runId) as ExpectationSummary['byName'];
  const failures = db
    .prepare(
      `SELECT i.key AS itemKey, i.target, i.suite_item_id AS suiteItemId, i.repeat, e.name, e.reason, e.turn
      FROM expectations e JOIN items i ON i.run_id = e.run_id AND i.key = e.item_key
      WHERE e.run_id = ? AND e.passed = 0 ORDER BY i.position, e.position`,
    )
    .all(runId) as ExpectationSummary['failures'];
  const passed = byName.reduce((sum, n) => sum + n.passed, 0);
  const total = byName.reduce((sum, n) => sum + n.total, 0);
  return { total, passed, failed: total - passed, byName, failures };
}
