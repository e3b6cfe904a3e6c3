import type { Block, Inline } from '../report/document.js';
import type { Table } from '../report/tables.js';
import { type SafeHtml, html } from './html.js';

// The report's blocks (src/report/document.ts) as HTML: the viewer shows the sections report.md is made of,
// from the same data, with every value escaped by `html`.

function inlineHtml(parts: readonly Inline[]): SafeHtml {
  return html`${parts.map((p) => (typeof p === 'string' ? html`${p}` : 'code' in p ? html`<code>${p.code}</code>` : html`<strong>${p.strong}</strong>`))}`;
}

function tableHtml(table: Table): SafeHtml {
  const cls = (i: number) => (table.align?.[i] === 'right' ? html` class="num"` : '');
  return html`<table class="list"><thead><tr>${table.headers.map((h, i) => html`<th scope="col"${cls(i)}>${h}</th>`)}</tr></thead>
<tbody>${table.rows.map((r) => html`<tr>${r.map((c, i) => html`<td${cls(i)}>${c}</td>`)}</tr>`)}</tbody></table>`;
}

function blockHtml(b: Block): SafeHtml {
  switch (b.kind) {
    // The page's own h1 names the run: the report's headings start one level below it.
    case 'heading':
      return b.level === 1 ? html`<h2>${inlineHtml(b.text)}</h2>` : b.level === 2 ? html`<h3>${inlineHtml(b.text)}</h3>` : html`<h4>${inlineHtml(b.text)}</h4>`;
    case 'para':
      return html`<p>${inlineHtml(b.text)}</p>`;
    case 'callout':
      return html`<p class="callout" role="note">${inlineHtml(b.text)}</p>`;
    case 'list':
      return html`<ul>${b.items.map((i) => html`<li>${inlineHtml(i)}</li>`)}</ul>`;
    case 'table':
      return b.table.rows.length === 0 ? html`` : tableHtml(b.table);
  }
}

export function blocksHtml(blocks: readonly Block[]): SafeHtml {
  return html`${blocks.map(blockHtml)}`;
}
