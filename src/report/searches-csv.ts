import { round } from '../stats/percentiles.js';
import type { SearchExportRow } from '../store/queries.js';
import { type Column, text } from './csv.js';
import { reasons, verdictOf } from './expectations.js';

type Row = SearchExportRow & { runId: number };

/** searches.csv: one row per recorded search. The order and names of these columns are stable. */
export const SEARCH_COLUMNS: ReadonlyArray<Column<Row>> = [
  { name: 'run_id', value: (r) => r.runId },
  { name: 'target', value: (r) => r.target },
  { name: 'search_id', value: (r) => r.suiteItemId },
  { name: 'repeat', value: (r) => r.repeat },
  { name: 'item_key', value: (r) => r.itemKey },
  { name: 'tags', value: (r) => r.tags.join(' ') },
  { name: 'item_status', value: (r) => r.itemStatus },
  { name: 'item_outcome', value: (r) => r.outcome },
  { name: 'verdict', value: (r) => r.verdict },
  { name: 'query', value: (r) => text(r.query) },
  { name: 'params', value: (r) => text(JSON.stringify(r.params)) },
  { name: 'match_count', value: (r) => r.matchCount },
  { name: 'counted', value: (r) => r.counted },
  { name: 'counted_by_type', value: (r) => JSON.stringify(r.countedByType) },
  { name: 'repositories', value: (r) => r.repositories },
  { name: 'files', value: (r) => r.files },
  { name: 'repositories_count', value: (r) => r.repositoriesCount },
  { name: 'exhaustive', value: (r) => r.exhaustive },
  { name: 'duration_ms', value: (r) => r.durationMs },
  // Times dsbench measured itself (performance.now) are whole milliseconds: sub-millisecond digits are noise.
  { name: 'wall_ms', value: (r) => round(r.wallMs, 0) },
  { name: 'time_to_first_event_ms', value: (r) => round(r.timeToFirstEventMs, 0) },
  { name: 'time_to_first_match_ms', value: (r) => round(r.timeToFirstMatchMs, 0) },
  { name: 'skipped_count', value: (r) => r.skipped.length },
  { name: 'skipped', value: (r) => text(r.skipped.map((s) => [s.reason, s.severity, s.title].filter(Boolean).join(': ')).join('\n')) },
  { name: 'alert', value: (r) => text(r.alert) },
  { name: 'error', value: (r) => text(r.error) },
  { name: 'http_status', value: (r) => r.httpStatus },
  { name: 'expect_verdict', value: (r) => verdictOf(r.expectations) },
  { name: 'expect_reasons', value: (r) => text(reasons(r.expectations)) },
  { name: 'trace_id', value: (r) => r.traceId },
  { name: 'trace_url', value: (r) => r.traceUrl },
];
