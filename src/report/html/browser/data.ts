// The JSON each page embeds: what the viewer reads of it. The pages' writers (report-html.ts, compare-html.ts,
// history-html.ts) type what they embed with these, so a field renamed on either side fails the type-check.
// Long tables come as positional rows, their column names listed beside them.

import type { SearchColumn, TurnColumn } from '../columns.js';

/** One cell of a positional row. */
export type Cell = string | number | boolean | null;
export type Row = Cell[];

export interface RunInfo {
  id: number;
  label: string | null;
  suiteName: string;
  status: string;
  startedAt: string;
  endedAt?: string | null;
}

/** An estimate with its interval; value null where nothing was measured. */
export interface Estimate {
  value: number | null;
  low: number | null;
  high: number | null;
  clusters: number;
}

export interface HistoryRow {
  runId: number;
  label: string | null;
  startedAt: string;
  status: string;
  target: string;
  items: number;
  completed: number;
  failed: number;
  expectedErrors: number;
  questions: number;
  passRate: number | null;
  serverMsP50: number | null;
  serverMsP90: number | null;
  creditsSum: number | null;
  productVersion?: string | null;
  versionChanged?: boolean;
}

export interface TurnGrading {
  grades: Array<{ spec: string; status: string; score: number | null; minScore: number; passed: boolean; reasons: string[]; error: string | null }>;
  citations: Array<{ link: string; status: string; reason: string }>;
}

export interface ReportPage {
  kind: 'report';
  db: string;
  generatedAt: string;
  run: RunInfo;
  targets: Array<{ name: string; url: string; api: string; servedByEmulator: boolean; productVersion: string | null; productVersionOnResume: string | null }>;
  inProgress: boolean;
  warnings?: string[];
  summary: Array<{ target: string; items: number; questions: number; completed: number; errors: string; passRate: number | null; serverP50: number | null; serverP90: number | null; tokens: number | null; cachedTokens: number | null; credits: number | null }>;
  tags: Array<{ target: string; tag: string; credits: number | null; tokens: number | null }>;
  expectations: { items: number; failedItems: number; byName?: Array<{ name: string; passed: number; failed: number }> };
  quality?: {
    confidence: number;
    targets: Array<{ target: string; k: number; passRate: Estimate; passAtK: Estimate; passHatK: Estimate; judgeScore: Estimate; citationValidity: Estimate; flaky: string[]; quarantined: string[] }>;
    questions: Array<{ target: string; id: string; label: string; quarantined: boolean; passed: number; repeats: number }>;
  };
  thresholds?: Row[];
  grades?: Array<{ target: string; grades: number; graded: number; unparseable: number; errors: number; passed: number; meanScore?: number; citations: { valid: number; invalid: number; unchecked: number }; citationValidity?: number; judgeTokens: number; cachedGrades: number }>;
  turnColumns: readonly TurnColumn[];
  searchColumns: readonly SearchColumn[];
  history: readonly HistoryRow[];
  /** The run's trace links (run --trace); absent when it kept none. */
  traces?: TracePanel;
  turns: Row[];
  gradings: TurnGrading[];
  answersCapped: number;
  searches: Row[];
}

/** A side's judge score and checked citations, where it was graded. */
export interface SideGrade {
  score: number | null;
  valid: number;
  invalid: number;
}

/** Both answers of a question pair, with what was said of each. */
export interface EmbeddedAnswers {
  question: string | null;
  baseline: string | null;
  candidate: string | null;
  sourcesBaseline: string[];
  sourcesCandidate: string[];
  reasonsBaseline: string | null;
  reasonsCandidate: string | null;
  gradeBaseline: SideGrade | null;
  gradeCandidate: SideGrade | null;
}

export interface ComparedMetric {
  metric: string;
  unit: string;
  n: number;
  clusters: number;
  baselineMedian: number | null;
  candidateMedian: number | null;
  delta: number | null;
  deltaLow: number | null;
  deltaHigh: number | null;
  relative: number | null;
  relativeLow: number | null;
  relativeHigh: number | null;
  threshold: number | null;
  detectable: number | null;
  judgement: string;
  /** Latencies: pairs timed by the server's clock and by dsbench's wall clock (absent in older pages). */
  clock?: { server: number; wall: number } | null;
}

/** A rate's change between the sides, with its interval and one-sided tests. */
export interface OutcomeChange {
  n: number;
  clusters: number;
  baseline: number | null;
  candidate: number | null;
  change: number | null;
  low: number | null;
  high: number | null;
  test: { pUpper: number; pLower: number };
}

export interface ComparePage {
  kind: 'compare';
  generatedAt: string;
  /** `baseline 6.9.2, candidate 7.0.1`: the instance's product version of each side. */
  versions: string;
  /** Items edited under the same id (`target/id#repeat`), and whether the gates judged them. */
  edited: { count: number; inGates: boolean; ids: string[] };
  baseline: { db: string; target: string | null; run: RunInfo };
  candidate: { db: string; target: string | null; run: RunInfo };
  failed: boolean;
  /** The verdict's tier, its exit code and the next step, as every output says it. */
  verdictLine: string;
  /** `outcome`: the gate's result in the words of every output (compare/verdict.ts gateOutcome). */
  gates: Array<{ name: string; enabled: boolean; failed: boolean; detail: string; outcome: string }>;
  metrics: ComparedMetric[];
  /** Said under the metrics table (an emulator timed the searches). */
  metricsNote?: string;
  outcomes?: {
    errorRate: OutcomeChange;
    passRate: OutcomeChange;
    /** Absent in pages written before the output-limit outcomes were told apart. */
    truncatedRate?: OutcomeChange;
    truncatedNoAnswerRate?: OutcomeChange;
    passHatK: { k: number; questions: number; baseline: number | null; candidate: number | null; change: number | null; test: { pLower: number } };
    quarantined: { clusters: number; ids: string[] };
  };
  stateChanges: { same: number; new_error: number; fixed: number; changed: number; in_progress: number };
  newFailures: number;
  fixedFailures: number;
  bootstrap: { confidence: number; resamples: number; seed: number | string };
  pairColumns: readonly string[];
  pairs: Row[];
  answers: EmbeddedAnswers[];
  answersCapped: number;
  pairwise: { result: Pairwise; failedGates: string[] } | null;
}

/** A rate over the decided pairs, with its interval. */
export interface Rate {
  value: number;
  low: number;
  high: number;
}

export interface Pairwise {
  pairs: number;
  wins: number;
  ties: number;
  losses: number;
  undecided: number;
  /** Questions the decided pairs belong to: what the rates' intervals resample. */
  questions: number;
  winRate?: Rate;
  tieRate?: Rate;
  lossRate?: Rate;
  scoreDelta?: { mean: number; pairs: number };
  citationValidity: { baseline?: number; candidate?: number; delta?: number };
  judgeCalls: number;
  cacheHits: number;
  problems: string[];
}

export interface ChangeScope {
  target: string;
  kind: 'suite' | 'tag' | 'question';
  name: string | null;
}

/** `report --history N --detect`: the change points of each metric's nightly series. */
export interface HistoryDetection {
  method: string;
  seed: number;
  nights: number;
  need: number;
  tooFew: boolean;
  versionsKnown: boolean;
  series: number;
  changes: Array<{
    scope: ChangeScope;
    metric: string;
    runId: number;
    startedAt: string;
    night: number;
    before: number;
    after: number;
    change: number;
    low: number;
    high: number;
    unit: 'points' | 'ratio';
    p: number;
    version: { runId: number; startedAt: string; from: string; to: string; nights: number } | null;
  }>;
  changedSeries: Array<{ scope: ChangeScope; metric: string; values: Array<number | null> }>;
}

export interface HistoryPage {
  kind: 'history';
  db: string;
  suite: string;
  rows: readonly HistoryRow[];
  /** Runs left out of the trend: they asked nothing (every item skipped before it was sent). */
  nothingAsked: ReadonlyArray<{ id: number; label: string | null; startedAt: string }>;
  generatedAt: string;
  detection?: HistoryDetection | undefined;
  grid?: {
    runs: Array<{ id: number; startedAt: string }>;
    rows: Array<{ target: string; id: string; cells: Array<{ checked: number; passed: number; errored: number; edited: boolean } | null>; flaky: boolean; step: { runId: number; direction: 'regressed' | 'fixed' } | null; quarantined: boolean }>;
  };
}

export type PageData = ReportPage | ComparePage | HistoryPage;

/** An item of a run beside its trace link (run --trace). */
export interface TraceItem {
  target: string;
  item: string;
  repeat: number;
  outcome: string | null;
  ms: number | null;
  id: string | null;
  url: string | null;
}

export interface TracePanel {
  traces: number;
  items: number;
  slowest: TraceItem[];
  failed: TraceItem[];
  fetched?: { dir: string; saved: number; stopped?: string; traces: Array<{ id: string; itemKey: string; cut: boolean; slowest: Array<{ operation: string; ms: number }> }> };
}
