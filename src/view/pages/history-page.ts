import { type SafeHtml, html, queryString } from '../html.js';
import { renderMarkdown } from '../markdown.js';
import type { Generated } from './generated.js';

// `/history?suite=S`: the suite's trend and question-by-night grid, as `dsbench report --history` makes them.

export const HISTORY_NIGHTS = 30;

export function historyPage(suite: string, limit: number, generated: Generated): { title: string; body: SafeHtml } {
  const title = `History of ${suite}`;
  const body = html`<h1>${title}</h1>
<p class="meta">The newest ${limit} runs. <a href="/history/page${queryString({ suite, n: limit })}">The interactive page with charts</a> (the same as history.html).</p>
<section class="summary">${renderMarkdown(generated.markdown)}</section>`;
  return { title, body };
}
