import { mkdirSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { confirmationTotals } from '../store/confirmations.js';
import {
  errorBreakdown,
  expectationOverview,
  iterateQuestionExport,
  iterateSearchExport,
  iterateSearches,
  iterateTurnMetrics,
  lostCreateChecks,
  type QuestionExportRow,
  type RunRecord,
  type SearchExportRow,
  runCounts,
  runTargets,
  traceOverview,
  unownedConversations,
} from '../store/queries.js';
import { renderMarkdown, renderText } from './document.js';
import { inSnapshot, openResults, outputDir, resolveRun } from './open.js';
import { pushRunMetrics } from './push-metrics.js';
import { reportDocument } from './report-document.js';
import type { ReportData, ReportFormat, ReportResult } from './report-result.js';
import { REPORT_SINKS } from './report-sinks.js';
import { runQuality } from './quality.js';
import { RunSummaries } from './run-summaries.js';
import { abandonSinks, endSinks, openSinks, rowsTo } from './sink.js';
import { removeStalePartials } from './whole-file.js';
import { runThresholdResults } from './thresholds.js';
import { readFetchedTraces, traceArchiveDir } from './trace-archive.js';

export interface ReportOptions {
  /** Results database path. */
  db: string;
  /** `latest`, a run id, or a label. */
  run: string;
  /** Output folder; default `report-<runId>` beside the database (outputDir). */
  out?: string | undefined;
  /** What to write: `csv` the CSV files, `md` report.md, `json` report.json, `html` report.html. */
  formats: ReadonlySet<ReportFormat>;
  bom?: boolean | undefined;
  /** Clock for the quota projection (tests pin it). */
  now?: Date | undefined;
  /** Failures listed in summaries. */
  maxListed?: number | undefined;
  /** Also write JUnit XML (a test case per item) to this file. */
  junit?: string | undefined;
  /** Also push the run's metrics to this Prometheus Pushgateway. */
  pushMetrics?: string | undefined;
  /** Columns the terminal summary (`text`) is fitted to; default DEFAULT_TEXT_WIDTH. */
  textWidth?: number | undefined;
}

export function defaultReportDir(db: string, runId: number): string {
  return outputDir(db, `report-${runId}`);
}

/** Reads one run and writes its report files; everything from one consistent snapshot of the database. */
export async function writeReport(options: ReportOptions): Promise<ReportResult> {
  const store = openResults(options.db);
  try {
    const run = resolveRun(store.db, options.db, options.run);
    const out = options.out ?? defaultReportDir(options.db, run.id);
    mkdirSync(out, { recursive: true });
    // A report killed mid-write left its unfinished files; this one writes them again.
    removeStalePartials(out);
    const result = await inSnapshot(store.db, async (): Promise<ReportResult> => {
      const db = store.db;
      const names = new Set<ReportFormat | 'junit'>(options.formats);
      if (options.junit !== undefined) names.add('junit');
      const sinks = await openSinks(REPORT_SINKS, names, { db, run, out, bom: options.bom === true, junit: options.junit });
      let result: ReportResult;
      try {
        const data = reportData(db, options.db, run, options.now ?? new Date(), rowsTo(sinks), options.maxListed);
        const files = sinks.flatMap((s) => s.files);
        const blocks = reportDocument(data, files);
        result = { data, out, files, markdown: renderMarkdown(blocks), text: renderText(blocks, options.textWidth) };
      } catch (error) {
        abandonSinks(sinks);
        throw error;
      }
      // Inside the snapshot: the HTML page and JUnit read the run again as they write.
      await endSinks(sinks, result);
      return result;
    });
    const push = options.pushMetrics === undefined ? undefined : await pushRunMetrics(store.db, run, options.pushMetrics);
    return { ...result, ...(push && { pushed: push }) };
  } finally {
    store.close();
  }
}

/**
 * A run's report data from one pass over its turns and searches (call inside a snapshot): the rows go to
 * `toSinks` as they are read when some sink takes rows (the CSV exports), else the light metrics queries
 * feed the summaries. The files and the viewer (src/view) both build their summary from it.
 */
export function reportData(db: Database.Database, file: string, run: RunRecord, now: Date, toSinks?: ((row: QuestionExportRow | SearchExportRow) => void) | undefined, maxListed?: number): ReportData {
  const counts = runCounts(db, run.id);
  const targets = runTargets(db, run.id);
  // The per-turn numbers, about 36 bytes a question, are held while questions.csv streams; each turn also
  // brings its item and its stat anomalies.
  const summaries = new RunSummaries(run.id, targets.map((t) => t.name), counts);
  if (toSinks) {
    for (const t of iterateQuestionExport(db, run.id)) {
      summaries.addQuestionRow(t);
      toSinks(t);
    }
    for (const s of iterateSearchExport(db, run.id)) {
      summaries.addSearchRow(s);
      toSinks(s);
    }
  } else {
    for (const t of iterateTurnMetrics(db, run.id)) summaries.addTurn(t);
    for (const s of iterateSearches(db, run.id)) summaries.addSearch(s);
  }
  const { summary, searchSummary, costRows, itemsPending, itemsRunning, quota, inProgress, now: at, perQuestion, anomalies } = summaries.finish(db, run, now);
  return {
    db: file,
    run,
    targets,
    counts,
    inProgress,
    itemsPending,
    itemsRunning,
    summary,
    searchSummary,
    costs: costRows,
    quota,
    errors: errorBreakdown(db, run.id),
    anomalies,
    unowned: unownedConversations(db, run.id),
    confirmations: confirmationTotals(db, run.id),
    unchecked: lostCreateChecks(db, run.id).filter((row) => row.unchecked > 0),
    expectations: expectationOverview(db, run.id, maxListed ?? 20),
    perQuestion,
    quality: runQuality(db, run.id),
    thresholds: runThresholdResults(db, run),
    ...traceData(db, file, run.id, maxListed ?? 20),
    generatedAt: at.toISOString(),
  };
}

/** The run's kept traces, and what `--trace-fetch` saved of them beside the database. */
export function traceData(db: Database.Database, file: string, runId: number, limit: number): Pick<ReportData, 'traces'> {
  const overview = traceOverview(db, runId, limit);
  if (!overview) return {};
  const fetched = readFetchedTraces(traceArchiveDir(file, runId));
  return { traces: { ...overview, ...(fetched && { fetched }) } };
}
