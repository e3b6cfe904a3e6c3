import { mkdirSync, writeFileSync } from 'node:fs';
import type Database from 'better-sqlite3';
import path from 'node:path';
import {
  type ErrorBreakdownRow,
  type StatAnomalyRow,
  type UnownedConversationRow,
  type LostCreateCheckRow,
  type ExpectationSummary,
  type MeasuredCheck,
  type ExpectationRecord,
  type ItemColumns,
  type ItemVerdictRow,
  type QuestionExportRow,
  type SearchExportRow,
  type SearchRow,
  type QuotaSnapshotRow,
  type RunRecord,
  type RunTargetRow,
  type TurnMetricRow,
  errorBreakdown,
  statAnomalies,
  unownedConversations,
  lostCreateChecks,
  expectationOverview,
  iterateItemVerdicts,
  iterateQuestionExport,
  iterateSearchExport,
  iterateSearches,
  iterateTurnMetrics,
  quotaSnapshots,
  runCounts,
  runTargets,
} from '../store/queries.js';
import { type CostRow, COST_COLUMNS, CostAnalysis } from './costs.js';
import { writeCsv } from './csv.js';
import { renderMarkdown, renderText } from './document.js';
import { safeJson } from './tables.js';
import { inSnapshot, openResults, outputDir, resolveRun } from './open.js';
import { QUESTION_COLUMNS, questionRows } from './questions-csv.js';
import { type QuestionLine, PerQuestion } from './per-question.js';
import { type PushOutcome, pushRunMetrics } from './push-metrics.js';
import { reportDocument } from './report-document.js';
import { type RunQuality, runQuality } from './quality.js';
import { runThresholdResults, type ThresholdResult } from './thresholds.js';
import { SEARCH_COLUMNS, searchRows } from './searches-csv.js';
import {
  type QuestionSummaryRow,
  type SearchSummaryRow,
  QuestionSummary,
  SEARCH_SUMMARY_COLUMNS,
  SUMMARY_COLUMNS,
  SearchSummary,
} from './summary.js';

export type ReportFormat = 'csv' | 'md' | 'json' | 'html';

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

export interface ReportData {
  db: string;
  run: RunRecord;
  targets: RunTargetRow[];
  counts: { items: number; turns: number; searches: number };
  /** The run has not ended, or items are still pending or running. */
  inProgress: boolean;
  itemsPending: number;
  itemsRunning: number;
  summary: QuestionSummaryRow[];
  searchSummary: SearchSummaryRow[];
  costs: CostRow[];
  quota: QuotaSnapshotRow[];
  errors: ErrorBreakdownRow[];
  /** Replies whose stats could not be true: left out of sums and percentiles. */
  anomalies: StatAnomalyRow[];
  /** Conversations asking the run's questions that no item owns: their credits are in no figure. */
  unowned: UnownedConversationRow[];
  /** Per target, question texts of creates given up that no end-of-run check looked for (none: empty). */
  unchecked: LostCreateCheckRow[];
  expectations: ExpectationSummary & { items: number; passedItems: number; failedItems: number; measured: MeasuredCheck[] };
  /** One line per target and question id (null when the run has more than MAX_QUESTIONS of them). */
  perQuestion: QuestionLine[] | null;
  /** Pass rate, pass^k, judge score and citation validity with intervals; flaky and quarantined questions. */
  quality: RunQuality;
  /** The suite's thresholds judged on this run; empty when it set none. */
  thresholds: ThresholdResult[];
  generatedAt: string;
}

export interface ReportResult {
  data: ReportData;
  out: string;
  /** Paths written, in order. */
  files: string[];
  markdown: string;
  text: string;
  /** How the push went, when one was asked for. */
  pushed?: PushOutcome;
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
    const files: string[] = [];
    const data = await inSnapshot(store.db, async () => {
      const db = store.db;
      const counts = runCounts(db, run.id);
      const targets = runTargets(db, run.id);
      const order = targets.map((t) => t.name);
      const csv = options.formats.has('csv');
      const file = (name: string): string => {
        const p = path.join(out, name);
        files.push(p);
        return p;
      };
      const csvOptions = { bom: options.bom === true };
      // One pass over the turns and one over the searches feed the summaries: the CSV exports when they are
      // written (the per-turn numbers, about 36 bytes a question, are then held while questions.csv streams;
      // each turn also brings its item and its stat anomalies), else the light metrics queries.
      const summaries = new RunSummaries(run.id, order, counts);
      if (csv) {
        await writeCsv(file('questions.csv'), QUESTION_COLUMNS, questionRows(iterateQuestionExport(db, run.id), summaries), csvOptions);
        await writeCsv(file('searches.csv'), SEARCH_COLUMNS, searchRows(run.id, iterateSearchExport(db, run.id), summaries), csvOptions);
      } else {
        for (const t of iterateTurnMetrics(db, run.id)) summaries.addTurn(t);
        for (const s of iterateSearches(db, run.id)) summaries.addSearch(s);
      }
      const { summary, searchSummary, costRows, itemsPending, itemsRunning, quota, inProgress, now, perQuestion, anomalies } = summaries.finish(db, run, options.now ?? new Date());
      if (csv) {
        await writeCsv(file('summary.csv'), SUMMARY_COLUMNS, summary, csvOptions);
        await writeCsv(file('search-summary.csv'), SEARCH_SUMMARY_COLUMNS, searchSummary, csvOptions);
        await writeCsv(file('costs.csv'), COST_COLUMNS, costRows, csvOptions);
      }

      const result: ReportData = {
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
        unchecked: lostCreateChecks(db, run.id).filter((row) => row.unchecked > 0),
        expectations: expectationOverview(db, run.id, options.maxListed ?? 20),
        perQuestion,
        quality: runQuality(db, run.id),
        thresholds: runThresholdResults(db, run),
        generatedAt: now.toISOString(),
      };
      // Loaded only when asked for: the HTML page's modules are most of what a report would load otherwise.
      if (options.formats.has('html')) (await import('./html/report-html.js')).writeReportHtml(db, result, file('report.html'));
      if (options.junit !== undefined) {
        (await import('./junit.js')).writeRunJunit(db, run, options.junit);
        files.push(options.junit);
      }
      return result;
    });
    const mdFile = options.formats.has('md') ? pushed(files, path.join(out, 'report.md')) : undefined;
    const jsonFile = options.formats.has('json') ? pushed(files, path.join(out, 'report.json')) : undefined;
    const blocks = reportDocument(data, files);
    const markdown = renderMarkdown(blocks);
    if (mdFile) writeFileSync(mdFile, markdown);
    if (jsonFile) writeFileSync(jsonFile, safeJson(reportJson(data, files)));
    const push = options.pushMetrics === undefined ? undefined : await pushRunMetrics(store.db, run, options.pushMetrics);
    return { data, out, files, markdown, text: renderText(blocks), ...(push && { pushed: push }) };
  } finally {
    store.close();
  }
}

/**
 * The run's numbers: summary rows, search summary rows, cost rows, item progress, stat anomalies. Feed every
 * turn and search (`addQuestionRow`/`addSearchRow`, which also bring their items, or `addTurn`/`addSearch`),
 * then `finish`.
 */
class RunSummaries {
  private readonly questions: QuestionSummary;
  private readonly searches: SearchSummary;
  private readonly costs: CostAnalysis;
  private readonly perQuestion = new PerQuestion();
  private readonly anomalies: StatAnomalyRow[] = [];
  private itemsPending = 0;
  private itemsRunning = 0;
  /** Items counted from the export rows; null when the rows came without them (addTurn, addSearch). */
  private itemsSeen: number | null = 0;
  private lastItemKey: string | undefined;

  constructor(
    runId: number,
    order: string[],
    private readonly counts: { items: number; turns: number; searches: number },
  ) {
    this.questions = new QuestionSummary(runId, order, counts.turns);
    this.searches = new SearchSummary(runId, order, counts.searches);
    this.costs = new CostAnalysis(runId);
  }

  addTurn(t: TurnMetricRow): void {
    this.itemsSeen = null;
    this.turn(t);
  }

  addSearch(s: SearchRow): void {
    this.itemsSeen = null;
    this.searches.addSearch(s);
  }

  /** A row of questions.csv: a turn, its item (at the item's first turn: an item's turns come together) and its anomalies. */
  addQuestionRow(t: QuestionExportRow): void {
    this.turn(t);
    if (t.itemKey !== this.lastItemKey) {
      this.lastItemKey = t.itemKey;
      this.exportedItem(t, t.tagsJson, t.expectations);
    }
    if (t.anomalies !== null) this.anomalies.push({ target: t.target, itemKey: t.itemKey, turn: t.turn, anomalies: JSON.parse(t.anomalies) as string[] });
  }

  /** A row of searches.csv: a search and its item (one search an item). */
  addSearchRow(s: SearchExportRow): void {
    this.searches.addSearch(s);
    this.exportedItem(s, JSON.stringify(s.tags), s.expectations);
  }

  private turn(t: TurnMetricRow): void {
    this.questions.addTurn(t);
    this.costs.addTurn(t);
    this.perQuestion.addTurn(t);
  }

  private exportedItem(item: ItemColumns, tagsJson: string, expectations: readonly ExpectationRecord[]): void {
    if (this.itemsSeen !== null) this.itemsSeen++;
    this.addItem({
      kind: item.kind,
      target: item.target,
      suiteItemId: item.suiteItemId,
      repeat: item.repeat,
      tagsJson,
      status: item.itemStatus,
      outcome: item.outcome,
      expectations: expectations.length,
      expectPassed: expectations.length === 0 ? null : expectations.every((e) => e.passed) ? 1 : 0,
    });
  }

  private addItem(item: ItemVerdictRow): void {
    this.questions.addItem(item);
    this.searches.addItem(item);
    this.perQuestion.addItem(item);
    if (item.status === 'pending') this.itemsPending++;
    if (item.status === 'running') this.itemsRunning++;
  }

  finish(db: Database.Database, run: RunRecord, now: Date) {
    // The items no export row carried (not yet asked, or ended before their first turn); all of them when the rows came without their items.
    if (this.itemsSeen === null || this.itemsSeen < this.counts.items) {
      for (const item of iterateItemVerdicts(db, run.id, { unexported: this.itemsSeen !== null })) this.addItem(item);
    }
    const summary = this.questions.rows();
    const searchSummary = this.searches.rows();
    const quota = quotaSnapshots(db, run.id);
    const { itemsPending, itemsRunning } = this;
    const inProgress = run.status === 'running' || itemsPending > 0 || itemsRunning > 0;
    const costRows = this.costs.rows({ summary, snapshots: quota, runComplete: !inProgress, now });
    const anomalies = this.itemsSeen === null ? statAnomalies(db, run.id) : this.anomalies;
    return { summary, searchSummary, costRows, itemsPending, itemsRunning, quota, inProgress, now, perQuestion: this.perQuestion.rows(), anomalies };
  }
}

function pushed(files: string[], file: string): string {
  files.push(file);
  return file;
}

/** The JSON form of a report (report.json, `--format json`): the same figures as the CSV summaries. */
export function reportJson(data: ReportData, files: readonly string[]): Record<string, unknown> {
  return {
    db: data.db,
    generatedAt: data.generatedAt,
    run: data.run,
    targets: data.targets,
    counts: data.counts,
    inProgress: data.inProgress,
    itemsPending: data.itemsPending,
    itemsRunning: data.itemsRunning,
    summary: data.summary,
    searchSummary: data.searchSummary,
    costs: data.costs,
    quota: data.quota,
    errors: data.errors,
    anomalies: data.anomalies,
    unowned: data.unowned,
    unchecked: data.unchecked,
    expectations: data.expectations,
    quality: data.quality,
    thresholds: data.thresholds,
    files,
  };
}
