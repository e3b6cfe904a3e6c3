import type Database from 'better-sqlite3';
import type {
  ErrorBreakdownRow,
  ExpectationSummary,
  LostCreateCheckRow,
  MeasuredCheck,
  QuestionExportRow,
  QuotaSnapshotRow,
  RunRecord,
  RunTargetRow,
  SearchExportRow,
  StatAnomalyRow,
  TraceOverview,
  UnownedConversationRow,
} from '../store/queries.js';
import type { FetchedTraces } from './trace-archive.js';
import type { CostRow } from './costs.js';
import type { QuestionLine } from './per-question.js';
import type { PushOutcome } from './push-metrics.js';
import type { RunQuality } from './quality.js';
import type { ReportSink } from './sink.js';
import type { QuestionSummaryRow, SearchSummaryRow } from './summary.js';
import type { ThresholdResult } from './thresholds.js';

// What `dsbench report` makes of one run, apart from the code that makes it: its writers (report-sinks.ts,
// the HTML page, JUnit, the document) read these types and never the orchestrator (report.ts).

export type ReportFormat = 'csv' | 'md' | 'json' | 'html';

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
  /** Runs that re-asked this run's questions (`dsbench confirm`): their items and credits, counted apart from this run's. */
  confirmations: { runs: number[]; items: number; credits: number | null };
  /** Per target, question texts of creates given up that no end-of-run check looked for (none: empty). */
  unchecked: LostCreateCheckRow[];
  expectations: ExpectationSummary & { items: number; passedItems: number; failedItems: number; measured: MeasuredCheck[] };
  /** One line per target and question id (null when the run has more than MAX_QUESTIONS of them). */
  perQuestion: QuestionLine[] | null;
  /** Pass rate, pass^k, judge score and citation validity with intervals; flaky and quarantined questions. */
  quality: RunQuality;
  /** The suite's thresholds judged on this run; empty when it set none. */
  thresholds: ThresholdResult[];
  /** The instance's traces the run kept (run --trace), with what --trace-fetch saved of them; absent when it kept none. */
  traces?: (TraceOverview & { fetched?: FetchedTraces }) | undefined;
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

/** A row of the run's export as the report streams it: every question turn (plan order), then every search. */
export type RunRow = QuestionExportRow | SearchExportRow;

export const isQuestionRow = (row: RunRow): row is QuestionExportRow => row.kind === 'question';

/** What every writer of a run's report is made from. */
export interface RunSinkOptions {
  /** The run's database, inside the report's snapshot (writers that read their own pass). */
  db: Database.Database;
  run: RunRecord;
  /** The output folder. */
  out: string;
  bom: boolean;
  /** The JUnit file, when asked for. */
  junit: string | undefined;
}

export type RunSink = ReportSink<RunRow, ReportResult>;
