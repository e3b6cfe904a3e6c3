import type { ResolvedSearch } from '../config/resolve-suite.js';
import { runSearch, type SearchResult } from '../stream/index.js';
import { noteServedByEmulator } from './emulator-note.js';
import { evaluateSearch } from './expectations.js';
import type { ItemContext } from './item-context.js';
import type { ItemSummary } from './item-summary.js';
import type { SearchRecord } from '../model/item.js';
import { recordChecks, traceHeaders } from './trace-requests.js';

export interface SearchItem {
  key: string;
  target: string;
  search: ResolvedSearch;
}

const iso = () => new Date().toISOString();

/** Verdicts of a search that did not fail (`--trace failed` keeps no link of one with its checks passed). */
const SEARCH_PASSED: ReadonlySet<string> = new Set(['complete', 'limit_hit']);

/** Runs one streaming search and records its tally and verdict; a failed search is a verdict, not an exception. */
export async function runSearchItem(ctx: Pick<ItemContext, 'run' | 'target'>, item: SearchItem): Promise<ItemSummary> {
  const { recorder, runId } = ctx.run;
  const { search } = item;
  recorder.itemStarted(runId, item.key, iso());
  const params = {
    query: search.query,
    ...(search.patternType !== undefined && { patternType: search.patternType }),
    ...(search.chunkMatches !== undefined && { chunkMatches: search.chunkMatches }),
    ...(search.contextLines !== undefined && { contextLines: search.contextLines }),
    ...(search.maxLineLength !== undefined && { maxLineLen: search.maxLineLength }),
    ...(search.display !== undefined && { display: search.display }),
  };
  const headers = traceHeaders(ctx.target.trace, item.key);
  const result = await runSearch(ctx.target.stream, params, { timeoutMs: search.timeoutMs, signal: ctx.run.signals.abort, ...(headers && { headers }) });
  const record = searchRecord(search.query, params, result);
  recorder.inOneCommit(() => {
    noteServedByEmulator(recorder, runId, item.target, ctx.target.emulatorNoted, result.servedByEmulator);
    recorder.recordSearch(runId, item.key, record);
  });
  if (result.httpStatus === 401 || result.httpStatus === 403) ctx.target.gate.fail(record.error ?? `HTTP ${result.httpStatus}`);
  const results = evaluateSearch(search.expect, record);
  recordChecks(ctx, item.key, SEARCH_PASSED.has(result.verdict), results);
  recorder.itemFinished(runId, item.key, result.verdict, iso(), result.failure?.message);
  return { outcome: result.verdict, credits: null, passed: results.filter((r) => r.passed).length, failed: results.filter((r) => !r.passed).length };
}

export function searchRecord(query: string, params: Record<string, unknown>, result: SearchResult): SearchRecord {
  const alert = result.alerts[0];
  const errors = [...result.errors, ...(result.failure ? [result.failure.message] : [])];
  return {
    query,
    params,
    verdict: result.verdict,
    matchCount: result.matchCount,
    counted: result.counted,
    countedByType: result.countedByType,
    repositories: result.repositories,
    files: result.files,
    repositoriesCount: result.repositoriesCount,
    exhaustive: result.exhaustive,
    durationMs: result.durationMs,
    wallMs: result.wallMs,
    timeToFirstEventMs: result.timeToFirstEventMs,
    timeToFirstMatchMs: result.timeToFirstMatchMs,
    skipped: result.skipped.map((s) => ({ reason: s.reason, title: s.title, severity: s.severity })),
    alert: alert ? [alert.title, alert.description].filter(Boolean).join(': ') : undefined,
    error: errors.length > 0 ? errors.join('; ') : undefined,
    httpStatus: result.httpStatus,
    trace: result.requestTrace,
  };
}
