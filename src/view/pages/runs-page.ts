import type Database from 'better-sqlite3';
import { verdictWord } from '../../model/verdict.js';
import { passRates, rateText } from '../figures.js';
import { listRuns, runTargets } from '../../store/queries.js';
import { type SafeHtml, html, queryString } from '../html.js';

// `/`: the runs, newest first, filtered by suite, label and state, each with its verdict and pass rate.

export interface RunsQuery {
  suite?: string | undefined;
  label?: string | undefined;
  state?: string | undefined;
}

const LISTED = 200;

function passRateText(db: Database.Database, runId: number): string {
  const rates = passRates(db, runId).filter((r) => r.rate.value !== null);
  return rates.map((r) => `${rates.length > 1 ? `${r.target} ` : ''}${rateText(r.rate)}`).join(', ');
}

function durationText(startedAt: string, endedAt: string | null): string {
  if (!endedAt) return '';
  const s = Math.max(0, (Date.parse(endedAt) - Date.parse(startedAt)) / 1000);
  return s >= 3600 ? `${(s / 3600).toFixed(1)} h` : s >= 60 ? `${(s / 60).toFixed(1)} min` : `${s.toFixed(0)} s`;
}

export function runsPage(db: Database.Database, query: RunsQuery): { title: string; body: SafeHtml } {
  const all = listRuns(db, { limit: 2000, suite: query.suite || undefined });
  const suites = [...new Set(all.map((r) => r.suiteName))].sort();
  const runs = all.filter((r) => (!query.label || r.label === query.label) && (!query.state || r.status === query.state)).slice(0, LISTED);
  const select = (name: string, label: string, options: string[], value: string | undefined) =>
    html`<label>${label} <select name="${name}"><option value="">all</option>${options.map((o) => html`<option${o === value ? html` selected` : ''}>${o}</option>`)}</select></label>`;
  const labels = [...new Set(all.flatMap((r) => (r.label ? [r.label] : [])))].sort();
  const rows = runs.map((r) => {
    const targets = runTargets(db, r.id);
    const verdict = r.status === 'running' ? 'running' : verdictWord(r.exitCode);
    return html`<tr>
<td><a href="/runs/${r.id}">${r.id}</a></td><td>${r.suiteName}</td><td>${r.label ?? ''}</td>
<td>${targets.map((t) => t.name).join(', ')}${r.emulated ? ' (emulated)' : ''}</td>
<td><span class="state ${r.status}">${r.status}</span></td>
<td><span class="verdict v${r.status === 'running' ? 'running' : r.exitCode}">${verdict}</span></td>
<td class="num">${passRateText(db, r.id)}</td>
<td class="num">${r.credits === null ? 'not measured' : r.credits.toLocaleString('en-US')}</td>
<td class="num">${r.items}</td>
<td>${r.startedAt.replace('T', ' ').slice(0, 19)}</td><td class="num">${durationText(r.startedAt, r.endedAt)}</td>
</tr>`;
  });
  const filtered = query.suite || query.label || query.state;
  const body = html`<h1>Runs</h1>
<form class="filters" method="get" action="/">
${select('suite', 'Suite', suites, query.suite)} ${select('label', 'Label', labels, query.label)} ${select('state', 'State', ['running', 'completed', 'aborted', 'failed'], query.state)}
<button type="submit">Filter</button>${filtered ? html` <a href="/">clear</a>` : ''}
</form>
${runs.length === 0 ? html`<p>No runs${filtered ? ' match these filters' : ' in this database yet: run a suite with npx dsbench run'}.</p>` : html`<table class="list">
<caption>${runs.length} run${runs.length === 1 ? '' : 's'}${all.length > runs.length && !filtered ? ` (newest ${runs.length})` : ''}; pass rates with 95% intervals over questions</caption>
<thead><tr><th scope="col">run</th><th scope="col">suite</th><th scope="col">label</th><th scope="col">targets</th><th scope="col">state</th><th scope="col">verdict</th><th scope="col">pass rate</th><th scope="col">credits</th><th scope="col">items</th><th scope="col">started (UTC)</th><th scope="col">duration</th></tr></thead>
<tbody>${rows}</tbody></table>`}
${suites.length > 0 ? html`<p>History: ${suites.map((s, i) => html`${i > 0 ? ', ' : ''}<a href="/history${queryString({ suite: s })}">${s}</a>`)}. Compare two runs: <a href="/compare">choose</a>.</p>` : ''}`;
  return { title: 'Runs', body };
}
