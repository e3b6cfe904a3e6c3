import type Database from 'better-sqlite3';
import type { RunRecord } from '../../store/queries.js';
import { ITEM_SORTS, type ItemPageQuery, type ItemSort, type SortKeys, itemFacets, itemPage, sortKeys } from '../../store/view-queries.js';
import { type SafeHtml, externalLink, fmtMs, html, queryString } from '../html.js';
import type { RunCache } from '../run-cache.js';

// `/runs/<id>`: the run's figures (sections of report.md, from the same code and data) and its items, a page
// at a time, sorted and filtered by the database.

export const PAGE_SIZE = 50;

export type RunPageParams = Record<string, string | undefined>;

export function itemQueryOf(params: RunPageParams): ItemPageQuery {
  const sort = (ITEM_SORTS as readonly string[]).includes(params['sort'] ?? '') ? (params['sort'] as ItemSort) : 'position';
  const page = Math.max(1, Math.floor(Number(params['page'] ?? '1')) || 1);
  const check = params['check'] === 'passed' || params['check'] === 'failed' ? params['check'] : undefined;
  return {
    sort,
    descending: params['order'] === 'desc',
    offset: (page - 1) * PAGE_SIZE,
    limit: PAGE_SIZE,
    state: params['state'] || undefined,
    tag: params['tag'] || undefined,
    check,
    target: params['target'] || undefined,
    text: params['q'] || undefined,
  };
}

function filtersHtml(db: Database.Database, runId: number, params: RunPageParams, cache: RunCache): SafeHtml {
  const facets = cache.get(runId, 'facets', () => itemFacets(db, runId));
  const option = (value: string, text: string, selected: string | undefined) => html`<option value="${value}"${value === (selected ?? '') ? html` selected` : ''}>${text}</option>`;
  const select = (name: string, label: string, options: Array<[string, string]>, all = true) =>
    html`<label>${label} <select name="${name}">${all ? option('', 'all', params[name]) : ''}${options.map(([v, t]) => option(v, t, params[name]))}</select></label>`;
  return html`<form class="filters" method="get" action="/runs/${runId}" role="search" aria-label="Filter items">
${select('state', 'State', facets.states.map(([s, n]): [string, string] => [s, `${s} (${n})`]))}
${select('check', 'Checks', [['failed', 'some failed'], ['passed', 'all passed']])}
${facets.tags.length > 0 ? select('tag', 'Tag', facets.tags.map((t): [string, string] => [t, t])) : ''}
${facets.targets.length > 1 ? select('target', 'Target', facets.targets.map((t): [string, string] => [t, t])) : ''}
<label>Text <input type="search" name="q" value="${params['q'] ?? ''}" placeholder="in questions and answers"></label>
${select('sort', 'Sort', ITEM_SORTS.map((s): [string, string] => [s === 'position' ? '' : s, s === 'position' ? 'plan order' : s]), false)}
${select('order', 'Order', [['', 'ascending'], ['desc', 'descending']], false)}
<button type="submit">Apply</button> <a href="/runs/${runId}">clear</a>
</form>`;
}

function itemsHtml(db: Database.Database, runId: number, params: RunPageParams, cache: RunCache): SafeHtml {
  const query = itemQueryOf(params);
  const { rows, total } = itemPage(db, runId, query, () => cache.get<SortKeys>(runId, 'sort keys', () => sortKeys(db, runId)));
  const page = query.offset / PAGE_SIZE + 1;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const link = (p: number) => `/runs/${runId}${queryString({ ...params, page: p === 1 ? undefined : p })}#items`;
  const nav = html`<nav class="pager" aria-label="Pages of items">${page > 1 ? html`<a href="${link(page - 1)}" rel="prev">← previous</a>` : ''}
<span>page ${page} of ${pages} (${total.toLocaleString('en-US')} item${total === 1 ? '' : 's'})</span>
${page < pages ? html`<a href="${link(page + 1)}" rel="next">next →</a>` : ''}</nav>`;
  const body = rows.map(
    (r) => html`<tr>
<td><a href="/runs/${runId}/items/${encodeURIComponent(r.key)}">${r.id}</a>${r.repeat > 1 ? html` <span class="muted">#${r.repeat}</span>` : ''}${r.traceUrl ? html` <span class="trace">${externalLink(r.traceUrl, 'trace')}</span>` : ''}</td>
<td><span class="state ${r.state}">${r.state}</span></td>
<td>${r.checks === 0 ? '' : r.checksFailed > 0 ? html`<span class="bad">${r.checksFailed} of ${r.checks} failed</span>` : html`<span class="good">${r.checks} passed</span>`}</td>
<td class="num">${fmtMs(r.serverMs)}</td><td class="num">${r.credits ?? ''}</td>
<td>${r.target}</td><td>${r.tags.join(', ')}</td><td class="text">${(r.question ?? '').slice(0, 160)}</td>
</tr>`,
  );
  return html`<h2 id="items">Items</h2>${filtersHtml(db, runId, params, cache)}${nav}
<table class="list" id="items-table"><thead><tr><th scope="col">item</th><th scope="col">state</th><th scope="col">checks</th><th scope="col">server time</th><th scope="col">credits</th><th scope="col">target</th><th scope="col">tags</th><th scope="col">question or query</th></tr></thead>
<tbody>${body.length === 0 ? html`<tr><td colspan="8">No item matches.</td></tr>` : body}</tbody></table>${nav}`;
}

export function runPage(db: Database.Database, run: RunRecord, params: RunPageParams, cache: RunCache): { title: string; body: SafeHtml } {
  const name = `Run ${run.id}${run.label ? ` (${run.label})` : ''}`;
  const body = html`<h1>${name} <span class="state ${run.status}" id="run-status">${run.status}</span></h1>
<p class="meta">Suite ${run.suiteName}, started ${run.startedAt}${run.endedAt ? `, ended ${run.endedAt}` : ''}. <a href="/history${queryString({ suite: run.suiteName })}">History of the suite</a> · <a href="/compare${queryString({ candidate: run.id })}">Compare with…</a></p>
<section class="figures" aria-label="Summary" data-fragment="/runs/${run.id}/figures" aria-busy="true"><p class="muted">Counting the run's figures… (<a href="/runs/${run.id}/figures">open them</a>)</p></section>
${itemsHtml(db, run.id, params, cache)}`;
  return { title: name, body };
}
