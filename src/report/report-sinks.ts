import path from 'node:path';
import type { QuestionExportRow, SearchExportRow } from '../store/queries.js';
import { COST_COLUMNS } from './costs.js';
import { CsvFile, writeCsv } from './csv.js';
import { QUESTION_COLUMNS } from './questions-csv.js';
import { reportJson } from './report-json.js';
import { type ReportFormat, type ReportResult, type RunRow, type RunSink, type RunSinkOptions, isQuestionRow } from './report-result.js';
import { SEARCH_COLUMNS } from './searches-csv.js';
import { MarkdownFile, type SinkMap } from './sink.js';
import { SEARCH_SUMMARY_COLUMNS, SUMMARY_COLUMNS } from './summary.js';
import { safeJson } from './tables.js';
import { writeWhole } from './whole-file.js';

/** The CSV files: questions.csv and searches.csv as the rows stream, the summaries' files at the end. */
class RunCsv implements RunSink {
  readonly files: string[];
  private readonly questions: CsvFile<QuestionExportRow>;
  private readonly searches: CsvFile<SearchExportRow & { runId: number }>;

  constructor(private readonly o: RunSinkOptions) {
    this.files = ['questions.csv', 'searches.csv', 'summary.csv', 'search-summary.csv', 'costs.csv'].map((name) => path.join(o.out, name));
    this.questions = new CsvFile(this.files[0]!, QUESTION_COLUMNS, { bom: o.bom });
    this.searches = new CsvFile(this.files[1]!, SEARCH_COLUMNS, { bom: o.bom });
  }

  row(row: RunRow): void {
    if (isQuestionRow(row)) this.questions.row(row);
    else this.searches.row(Object.assign(row, { runId: this.o.run.id }));
  }

  async end(result: ReportResult): Promise<void> {
    try {
      this.questions.end();
    } finally {
      this.searches.end();
    }
    const options = { bom: this.o.bom };
    await writeCsv(this.files[2]!, SUMMARY_COLUMNS, result.data.summary, options);
    await writeCsv(this.files[3]!, SEARCH_SUMMARY_COLUMNS, result.data.searchSummary, options);
    await writeCsv(this.files[4]!, COST_COLUMNS, result.data.costs, options);
  }

  abandon(): void {
    this.questions.abandon();
    this.searches.abandon();
  }
}

/** report.md: the document, as printed with `--format md`. */
class ReportMarkdown extends MarkdownFile {
  constructor(o: RunSinkOptions) {
    super(path.join(o.out, 'report.md'));
  }
}

/** report.json: the figures, as printed with `--format json`. */
class ReportJson implements RunSink {
  readonly files: string[];

  constructor(o: RunSinkOptions) {
    this.files = [path.join(o.out, 'report.json')];
  }

  end(result: ReportResult): void {
    writeWhole(this.files[0]!, safeJson(reportJson(result.data, result.files)));
  }
}

/** Every output of `dsbench report` by name, in the order their files are listed. */
export const REPORT_SINKS: SinkMap<ReportFormat | 'junit', RunSinkOptions, RunSink> = {
  csv: async () => RunCsv,
  // Loaded only when asked for: the HTML page's modules are most of what a report would load otherwise.
  html: async () => (await import('./html/report-html.js')).ReportHtml,
  junit: async () => (await import('./junit.js')).RunJunit,
  md: async () => ReportMarkdown,
  json: async () => ReportJson,
};
