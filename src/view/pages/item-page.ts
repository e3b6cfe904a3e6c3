import type Database from 'better-sqlite3';
import { type TurnGrading, turnGradingLookup } from '../../store/grade-queries.js';
import type { RunRecord } from '../../store/queries.js';
import { type StoredTurn } from '../../store/item-rows.js';
import { type TraceRow, itemTraces } from '../../store/trace-readers.js';
import { type ViewedItem, sameQuestionElsewhere, viewedItem } from '../../store/view-queries.js';
import { type SafeHtml, externalLink, fmtMs, html } from '../html.js';
import { renderMarkdown } from '../markdown.js';

// `/runs/<id>/items/<key>`: one item with everything recorded of it: each turn's question and answer
// (Markdown, rendered inert), sources with each checked citation's verdict, checks, the judge's grades,
// errors, timings and polls, and the same question in the suite's other runs.

/** A kept trace as a link to the instance's trace view (`run --trace`); its id as text when no web address came. */
function traceLink(trace: TraceRow): SafeHtml {
  const what = `${trace.operation}${trace.turn === null ? '' : ` of turn ${trace.turn}`}`;
  return html`${trace.url ? externalLink(trace.url, `trace ${trace.traceId}`) : html`trace ${trace.traceId}`} <span class="muted">${what}${trace.note ? `; ${trace.note}` : ''}</span>`;
}

function tracesHtml(traces: readonly TraceRow[]): SafeHtml {
  if (traces.length === 0) return html``;
  // The first is the item's link (its create's trace holds the whole conversation on an instance that joins them).
  const [first, ...rest] = traces as [TraceRow, ...TraceRow[]];
  return html`<p class="meta trace">Trace: ${traceLink(first)}</p>${rest.length > 0 ? html`<details><summary>${rest.length} more trace${rest.length === 1 ? '' : 's'} of its requests</summary><ul class="traces">${rest.map((t) => html`<li>${traceLink(t)}</li>`)}</ul></details>` : ''}`;
}

function sourcesHtml(turn: StoredTurn, grading: TurnGrading | undefined): SafeHtml {
  const cited = new Map((grading?.citations ?? []).map((c) => [c.link, c]));
  const extra = (grading?.citations ?? []).filter((c) => !turn.sources.some((s) => s.link === c.link));
  if (turn.sources.length === 0 && extra.length === 0) return html``;
  const row = (linkText: string, label: string, type: string) => {
    const c = cited.get(linkText);
    return html`<li>${externalLink(linkText, label || linkText)} <span class="muted">${type}</span>${c ? html` <span class="citation ${c.status}">${c.status}</span>${c.reason ? html` <span class="muted">${c.reason}</span>` : ''}` : ''}</li>`;
  };
  return html`<h4>Sources</h4><ul class="sources">${turn.sources.map((s) => row(s.link, s.label, s.type))}${extra.map((c) => row(c.link, c.link, 'cited in the answer'))}</ul>`;
}

function gradesHtml(grading: TurnGrading | undefined): SafeHtml {
  if (!grading || grading.grades.length === 0) return html``;
  return html`<h4>Judge</h4><ul>${grading.grades.map(
    (g) => html`<li><strong>${g.spec}</strong>: ${g.status}${g.score === null ? '' : `, score ${g.score} (at least ${g.minScore})`} <span class="${g.passed ? 'good' : 'bad'}">${g.passed ? 'passed' : 'failed'}</span>${g.error ? html` <span class="bad">${g.error}</span>` : ''}${g.reasons.length > 0 ? html`<ul>${g.reasons.map((r) => html`<li>${r}</li>`)}</ul>` : ''}</li>`,
  )}</ul>`;
}

function turnHtml(turn: StoredTurn, grading: TurnGrading | undefined): SafeHtml {
  const error = turn.errorCode || turn.clientError || turn.errorMessage;
  const timing = [
    turn.serverMs === null ? null : `server ${fmtMs(turn.serverMs)}${turn.serverMsSource ? ` (${turn.serverMsSource})` : ''}`,
    turn.wallMs === null ? null : `observed ${fmtMs(turn.wallMs)}`,
    `${turn.polls} poll${turn.polls === 1 ? '' : 's'}`,
    turn.credits === null ? null : `${turn.credits} credits`,
    turn.totalInputTokens === null ? null : `${turn.totalInputTokens} input tokens`,
    turn.toolCalls === null ? null : `${turn.toolCalls} tool calls`,
  ].filter((x): x is string => x !== null);
  return html`<section class="turn" aria-labelledby="turn-${turn.turn}">
<h3 id="turn-${turn.turn}">Turn ${turn.turn} <span class="state ${turn.state}">${turn.state}</span></h3>
<div class="question"><h4>Question</h4>${renderMarkdown(turn.text)}</div>
${error ? html`<p class="bad" role="alert">Error ${turn.errorCode ?? turn.clientError ?? ''}: ${turn.errorTitle ?? ''} ${turn.errorMessage ?? ''}</p>` : ''}
<div class="answer"><h4>Answer${turn.title ? html`: ${turn.title}` : ''}</h4>${turn.answer ? renderMarkdown(turn.answer) : html`<p class="muted">No answer recorded.</p>`}</div>
${sourcesHtml(turn, grading)}${gradesHtml(grading)}
${turn.suggestedFollowups.length > 0 ? html`<h4>Suggested follow-ups</h4><ul>${turn.suggestedFollowups.map((f) => html`<li>${f}</li>`)}</ul>` : ''}
<p class="meta">${timing.join(' · ')}${turn.sentAt ? ` · sent ${turn.sentAt}` : ''}</p>
</section>`;
}

function checksHtml(item: ViewedItem): SafeHtml {
  if (item.expectations.length === 0) return html`<p class="muted">No checks.</p>`;
  return html`<table class="list"><caption>Checks</caption><thead><tr><th scope="col">check</th><th scope="col">turn</th><th scope="col">result</th><th scope="col">why</th></tr></thead><tbody>${item.expectations.map(
    (e) => html`<tr><td>${e.name}</td><td>${e.turn ?? 'item'}</td><td><span class="${e.passed ? 'good' : 'bad'}">${e.passed ? 'passed' : 'failed'}</span></td><td>${e.reason}</td></tr>`,
  )}</tbody></table>`;
}

export function itemPage(db: Database.Database, run: RunRecord, key: string): { title: string; body: SafeHtml } | undefined {
  const item = viewedItem(db, run.id, key);
  if (!item) return undefined;
  const gradingOf = turnGradingLookup(db);
  const others = sameQuestionElsewhere(db, run.id, item.id, item.target);
  const search = item.search;
  // A column of reading width: see assets.ts.
  const body = html`<div class="item"><h1>${item.id}${item.repeat > 1 ? ` #${item.repeat}` : ''} <span class="state ${item.outcome ?? item.status}">${item.outcome ?? item.status}</span></h1>
<p class="meta">${item.kind} on ${item.target}${item.tags.length > 0 ? `, tags ${item.tags.join(', ')}` : ''}${item.startedAt ? `, started ${item.startedAt}` : ''}${item.endedAt ? `, ended ${item.endedAt}` : ''}${item.conversationRef ? `, conversation ${item.conversationRef}` : ''}</p>
${tracesHtml(itemTraces(db, run.id, key))}
${item.message ? html`<p class="bad" role="alert">${item.message}</p>` : ''}
${checksHtml(item)}
${search ? html`<section class="turn"><h3>Search</h3><pre>${search.query}</pre><p>${search.verdict}: ${search.matchCount ?? 'no'} matches${search.exhaustive === null ? '' : search.exhaustive ? ', exhaustive' : ', not exhaustive'}${search.durationMs === null ? '' : `, ${fmtMs(search.durationMs)}`}</p>${search.alert ? html`<p>Alert: ${search.alert}</p>` : ''}${search.error ? html`<p class="bad">${search.error}</p>` : ''}</section>` : ''}
${item.turns.map((t) => turnHtml(t, gradingOf(run.id, key, t.turn)))}
<h2>In other runs of ${run.suiteName}</h2>
${others.length === 0 ? html`<p class="muted">Not asked in another run.</p>` : html`<ul class="others">${others.map((o) => html`<li><a href="/runs/${o.runId}/items/${encodeURIComponent(o.key)}">run ${o.runId}${o.label ? ` (${o.label})` : ''}</a> <span class="state ${o.state}">${o.state}</span> <span class="muted">${o.startedAt}</span></li>`)}</ul>`}</div>`;
  return { title: `${item.id} in run ${run.id}`, body };
}
