import path from 'node:path';
import { MarkdownFile, type SinkMap } from '../sink.js';
import { safeJson } from '../tables.js';
import { CompareCsv } from './compare-csv.js';
import { compareJson } from './compare-json.js';
import type { ComparePair, CompareResult, CompareSink, CompareSinkOptions, PairwiseView } from './compare-result.js';
import { writeWhole } from '../whole-file.js';

/** compare.md: the document, as printed with `--format md`. */
class CompareMarkdown extends MarkdownFile implements CompareSink {
  constructor(o: CompareSinkOptions) {
    super(path.join(o.out, 'compare.md'));
  }

  pairwise(result: CompareResult, _pairwise: PairwiseView, text: string): void {
    writeWhole(this.files[0]!, result.markdown + text);
  }
}

/** Pairs of compare.json's trace list: those that got worse in the candidate. */
const MAX_TRACED_PAIRS = 100;

/** compare.json: the figures, as printed with `--format json`, and the trace links of the pairs that got worse. */
class CompareJson implements CompareSink {
  readonly files: string[];
  private readonly traces: Array<Record<string, unknown>> = [];

  constructor(o: CompareSinkOptions) {
    this.files = [path.join(o.out, 'compare.json')];
  }

  row({ row }: ComparePair): void {
    const worse = row.stateChange === 'new_error' || row.expectChange === 'new_failure';
    if (!worse || (row.traceUrlBaseline === null && row.traceUrlCandidate === null) || this.traces.length >= MAX_TRACED_PAIRS) return;
    this.traces.push({ kind: row.kind, itemId: row.itemId, repeat: row.repeat, turn: row.turn, stateChange: row.stateChange, expectChange: row.expectChange, traceUrlBaseline: row.traceUrlBaseline, traceUrlCandidate: row.traceUrlCandidate });
  }

  end(result: CompareResult): void {
    writeWhole(this.files[0]!, safeJson(this.withTraces(compareJson(result))));
  }

  pairwise(result: CompareResult, pairwise: PairwiseView): void {
    writeWhole(this.files[0]!, safeJson(this.withTraces(compareJson(result, pairwise))));
  }

  private withTraces(json: Record<string, unknown>): Record<string, unknown> {
    return this.traces.length > 0 ? { ...json, traces: this.traces } : json;
  }
}

export type CompareOutput = 'csv' | 'md' | 'json' | 'html' | 'junit';

/** Every output of `dsbench compare` by name, in the order their files are listed. */
export const COMPARE_SINKS: SinkMap<CompareOutput, CompareSinkOptions, CompareSink> = {
  csv: async () => CompareCsv,
  md: async () => CompareMarkdown,
  json: async () => CompareJson,
  // Loaded only when asked for, as the page's modules are many.
  html: async () => (await import('../html/compare-html.js')).CompareHtml,
  junit: async () => (await import('./compare-junit.js')).CompareJunit,
};
