import { REPORT_SECTIONS, reportDocument } from '../../report/report-document.js';
import type { ReportData } from '../../report/report-result.js';
import { blocksHtml } from '../blocks-html.js';
import { type SafeHtml, html } from '../html.js';

// A run's figures (`/runs/<id>/figures`) and its whole report (`/runs/<id>/report`): sections of report.md,
// from the same code and data. Made by the counting worker (report-worker.ts), off the server's thread.

/** The sections of the run's report shown above its items: its warnings, questions by target and quality. */
const FIGURES = [REPORT_SECTIONS.warnings, REPORT_SECTIONS.questions, REPORT_SECTIONS.quality];

/** The run's key figures, the report's own sections: fetched by the page after its first paint. */
export function figuresHtml(data: ReportData): SafeHtml {
  return html`${blocksHtml(FIGURES.flatMap((section) => section(data)))}
<p><a href="/runs/${data.run.id}/report">The whole report</a> (as report.md: errors, thresholds, expectations, tags, searches, costs).</p>`;
}

/** The report of a run: every section of report.md, from the same code. */
export function reportPage(data: ReportData): { title: string; body: SafeHtml } {
  return { title: `Report of run ${data.run.id}`, body: html`<section class="summary">${blocksHtml(reportDocument(data, []))}</section>` };
}
