import path from 'node:path';
import { type Column, CsvFile } from '../csv.js';
import type { ComparePair, CompareSink, CompareSinkOptions } from './compare-result.js';
import { delta, type CompareRow } from './pairs.js';

/** A pair's row and the run ids it is written with: one object reused for every row (a copy of the row a line was a tenth of a compare). */
interface Row {
  r: CompareRow;
  baselineRunId: number;
  candidateRunId: number;
}

const rel = (b: number | null, c: number | null): number | null => (b === null || c === null || b === 0 ? null : (c - b) / Math.abs(b));

/** compare.csv: one row per question turn and per search, paired or on one side. Stable columns. */
export const COMPARE_COLUMNS: ReadonlyArray<Column<Row>> = [
  { name: 'baseline_run_id', value: (w) => w.r.baselineRun ?? w.baselineRunId },
  { name: 'candidate_run_id', value: (w) => w.candidateRunId },
  { name: 'kind', value: ({ r }) => r.kind },
  { name: 'pairing', value: ({ r }) => r.pairing },
  { name: 'target_baseline', value: ({ r }) => r.targetBaseline },
  { name: 'target_candidate', value: ({ r }) => r.targetCandidate },
  { name: 'item_id', value: ({ r }) => r.itemId },
  { name: 'repeat', value: ({ r }) => r.repeat },
  { name: 'turn', value: ({ r }) => r.turn },
  { name: 'state_baseline', value: ({ r }) => r.stateBaseline },
  { name: 'state_candidate', value: ({ r }) => r.stateCandidate },
  { name: 'state_change', value: ({ r }) => r.stateChange },
  { name: 'error_code_baseline', value: ({ r }) => r.errorCodeBaseline },
  { name: 'error_code_candidate', value: ({ r }) => r.errorCodeCandidate },
  { name: 'comparable', value: ({ r }) => r.comparable },
  { name: 'latency_source', value: ({ r }) => r.latencySource },
  { name: 'latency_baseline_ms', value: ({ r }) => r.latencyBaseline },
  { name: 'latency_candidate_ms', value: ({ r }) => r.latencyCandidate },
  { name: 'latency_delta_ms', value: ({ r }) => delta(r.latencyBaseline, r.latencyCandidate) },
  { name: 'latency_change', value: ({ r }) => rel(r.latencyBaseline, r.latencyCandidate) },
  { name: 'tokens_baseline', value: ({ r }) => r.tokensBaseline },
  { name: 'tokens_candidate', value: ({ r }) => r.tokensCandidate },
  { name: 'tokens_delta', value: ({ r }) => delta(r.tokensBaseline, r.tokensCandidate) },
  { name: 'credits_baseline', value: ({ r }) => r.creditsBaseline },
  { name: 'credits_candidate', value: ({ r }) => r.creditsCandidate },
  { name: 'credits_delta', value: ({ r }) => delta(r.creditsBaseline, r.creditsCandidate) },
  { name: 'tool_calls_baseline', value: ({ r }) => r.toolCallsBaseline },
  { name: 'tool_calls_candidate', value: ({ r }) => r.toolCallsCandidate },
  { name: 'tool_calls_delta', value: ({ r }) => delta(r.toolCallsBaseline, r.toolCallsCandidate) },
  { name: 'sources_jaccard', value: ({ r }) => r.sourcesJaccard },
  { name: 'answer_similarity', value: ({ r }) => r.answerSimilarity },
  { name: 'count_baseline', value: ({ r }) => r.countBaseline },
  { name: 'count_candidate', value: ({ r }) => r.countCandidate },
  { name: 'count_delta', value: ({ r }) => delta(r.countBaseline, r.countCandidate) },
  { name: 'expect_baseline', value: ({ r }) => r.expectBaseline },
  { name: 'expect_candidate', value: ({ r }) => r.expectCandidate },
  { name: 'expect_change', value: ({ r }) => r.expectChange },
  { name: 'edited', value: ({ r }) => r.edited },
  { name: 'trace_url_baseline', value: ({ r }) => r.traceUrlBaseline },
  { name: 'trace_url', value: ({ r }) => r.traceUrlCandidate },
];

/** compare.csv, written as the pairs stream. */
export class CompareCsv implements CompareSink {
  readonly files: string[];
  private readonly csv: CsvFile<Row>;
  private readonly ids: { baselineRunId: number; candidateRunId: number };
  private line: Row | undefined;

  constructor(o: CompareSinkOptions) {
    this.files = [path.join(o.out, 'compare.csv')];
    this.ids = { baselineRunId: o.baselineRunId, candidateRunId: o.candidateRunId };
    this.csv = new CsvFile(this.files[0]!, COMPARE_COLUMNS, { bom: o.bom });
  }

  row({ row }: ComparePair): void {
    if (this.line === undefined) this.line = { r: row, ...this.ids };
    else this.line.r = row;
    this.csv.row(this.line);
  }

  end(): void {
    this.csv.end();
  }

  abandon(): void {
    this.csv.abandon();
  }
}
