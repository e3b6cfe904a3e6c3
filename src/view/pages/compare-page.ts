import type Database from 'better-sqlite3';
import { listRuns } from '../../store/queries.js';
import { type SafeHtml, html, queryString } from '../html.js';
import { renderMarkdown } from '../markdown.js';
import type { Generated } from './generated.js';

// `/compare`: pick two runs; with both, the comparison `dsbench compare` prints (its verdict, gates and
// tables, made by the same code) and a link to its interactive page.

export function comparePicker(db: Database.Database, baseline: string | undefined, candidate: string | undefined): SafeHtml {
  const runs = listRuns(db, { limit: 500 });
  const options = (value: string | undefined) =>
    runs.map((r) => html`<option value="${r.id}"${String(r.id) === value ? html` selected` : ''}>${r.id}: ${r.suiteName}${r.label ? ` (${r.label})` : ''} ${r.startedAt.slice(0, 16)}</option>`);
  return html`<form class="filters" method="get" action="/compare" aria-label="Choose two runs">
<label>Baseline <select name="baseline" required><option value="">choose</option>${options(baseline)}</select></label>
<label>Candidate <select name="candidate" required><option value="">choose</option>${options(candidate)}</select></label>
<button type="submit">Compare</button></form>`;
}

export function comparePage(db: Database.Database, baseline: string | undefined, candidate: string | undefined, generated: Generated | undefined): { title: string; body: SafeHtml } {
  const title = generated ? `Compare ${baseline} with ${candidate}` : 'Compare two runs';
  const body = html`<h1>${title}</h1>${comparePicker(db, baseline, candidate)}
${generated ? html`<p><a href="/compare/page${queryString({ baseline, candidate })}">The interactive comparison page</a> (charts and every pair; the same as compare.html).</p>
<section class="summary">${renderMarkdown(generated.markdown)}</section>` : html`<p>Choose a baseline and a candidate run of the same suite.</p>`}`;
  return { title, body };
}
