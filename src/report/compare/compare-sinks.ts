import path from 'node:path';
import { MarkdownFile, type SinkMap } from '../sink.js';
import { safeJson } from '../tables.js';
import { CompareCsv } from './compare-csv.js';
import { compareJson } from './compare-json.js';
import type { CompareResult, CompareSink, CompareSinkOptions, PairwiseView } from './compare-result.js';
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

/** compare.json: the figures, as printed with `--format json`. */
class CompareJson implements CompareSink {
  readonly files: string[];

  constructor(o: CompareSinkOptions) {
    this.files = [path.join(o.out, 'compare.json')];
  }

  end(result: CompareResult): void {
    writeWhole(this.files[0]!, safeJson(compareJson(result)));
  }

  pairwise(result: CompareResult, pairwise: PairwiseView): void {
    writeWhole(this.files[0]!, safeJson(compareJson(result, pairwise)));
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
