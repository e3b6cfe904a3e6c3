import { mkdirSync } from 'node:fs';
import { confirmationTotals } from '../store/confirmations.js';
import {
  errorBreakdown,
  expectationOverview,
  iterateQuestionExport,
  iterateSearchExport,
  iterateSearches,
  iterateTurnMetrics,
  lostCreateChecks,
  runCounts,
  runTargets,
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
import { runThresholdResults } from './thresholds.js';

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
    const result = await inSnapshot(store.db, async (): Promise<ReportResult> => {
      const db = store.db;
      const names = new Set<ReportFormat | 'junit'>(options.formats);
      if (options.junit !== undefined) names.add('junit');
      const sinks = await openSinks(REPORT_SINKS, names, { db, run, out, bom: options.bom === true, junit: options.junit });
      let result: ReportResult;
      try {
        const counts = runCounts(db, run.id);
        const targets = runTargets(db, run.id);
        // One pass over the turns and one over the searches feed the summaries: the sinks that take rows (the CSV
        // exports) when there are any (the per-turn numbers, about 36 bytes a question, are then held while
        // questions.csv streams; each turn also brings its item and its stat anomalies), else the light metrics queries.
        const summaries = new RunSummaries(run.id, targets.map((t) => t.name), counts);
        const toSinks = rowsTo(sinks);
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
        const { summary, searchSummary, costRows, itemsPending, itemsRunning, quota, inProgress, now, perQuestion, anomalies } = summaries.finish(db, run, options.now ?? new Date());
        const data: ReportData = {
          db: options.db,
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
          expectations: expectationOverview(db, run.id, options.maxListed ?? 20),
          perQuestion,
          quality: runQuality(db, run.id),
          thresholds: runThresholdResults(db, run),
          generatedAt: now.toISOString(),
        };
        const files = sinks.flatMap((s) => s.files);
        const blocks = reportDocument(data, files);
        result = { data, out, files, markdown: renderMarkdown(blocks), text: renderText(blocks) };
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
