import type { PairwiseResult } from '../../grade/pairwise.js';
import type { ComparedQuestionRow, RunRecord, SearchExportRow, TargetProductVersion } from '../../store/queries.js';
import type { ReportSink } from '../sink.js';
import type { CompareSummary } from './aggregate.js';
import type { BootstrapOptions } from '../../stats/bootstrap.js';
import type { Thresholds, Verdict } from './gates.js';
import type { Paired } from './pairing.js';
import type { CompareRow } from './pairs.js';

// What `dsbench compare` makes of two runs, apart from the code that makes it: its writers (the document,
// the sinks, the HTML page, JUnit) read these types and never the orchestrator (compare.ts).

export interface Side {
  db: string;
  run: RunRecord;
  /** The target compared, or null when items are paired across all targets by name. */
  target: string | null;
  targets: string[];
  /** The product version of each target compared (all targets when `target` is null), as recorded at the run's start. */
  productVersions: TargetProductVersion[];
  /** A dsbench emulator (embedded or standalone) answered a compared target: its search durations are its machine's time. */
  servedByEmulator: boolean;
  /** A pooled baseline (`window:K`): the runs pooled, newest first (`run` is the newest), and K. */
  window?: { runs: RunRecord[]; requested: number };
}

/** What `compare --judge` found, shown in its own section. */
export interface PairwiseView {
  result: PairwiseResult;
  failedGates: string[];
}

export interface CompareResult {
  baseline: Side;
  candidate: Side;
  /** Whether the target is part of the pairing key (multi-target runs compared target by target). */
  byTarget: boolean;
  summary: CompareSummary;
  /** The verdict's tier over the gates (gates.ts verdictOf), and its line as every output shows it. */
  verdict: Verdict;
  verdictLine: string;
  /** Set when a gate had nothing (or too little) to judge: what was compared and why it did not pair. */
  nothingCompared: string | undefined;
  thresholds: Thresholds;
  bootstrap: BootstrapOptions;
  out: string;
  files: string[];
  markdown: string;
  text: string;
  /** Writes compare.md, compare.json and compare.html (when written) again with the pairwise judge's section (`text` as printed). */
  addPairwise: (pairwise: PairwiseView, text: string) => void;
}

export type ExportRow = ComparedQuestionRow | SearchExportRow;

/** A row of the comparison as it streams: the two sides' records, and the row compare.csv writes of them. */
export interface ComparePair {
  pair: Paired<ExportRow, ExportRow>;
  row: CompareRow;
}

/** What every writer of a comparison is made from. */
export interface CompareSinkOptions {
  /** The output folder. */
  out: string;
  baselineRunId: number;
  candidateRunId: number;
  bom: boolean;
  /** The JUnit file, when asked for. */
  junit: string | undefined;
}

export interface CompareSink extends ReportSink<ComparePair, CompareResult> {
  /** `compare --judge` came after the files were written: write them again with its section (`text` as printed). */
  pairwise?(result: CompareResult, pairwise: PairwiseView, text: string): void;
}
