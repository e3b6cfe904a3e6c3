// The page of one run (`dsbench report`): summary, grades, quality, thresholds, charts and every question.
import { gradingNode } from './answers.js';
import { COLORS, chart, chartBox, endCharts, histogram, trendChart } from './charts.js';
import { type TurnColumn, columnIndex } from '../columns.js';
import type { ReportPage, Row, TurnGrading } from './data.js';
import { app, el, fmtCredits, fmtEst, fmtMs, fmtNum, fmtPct, header, heading, runName } from './dom.js';
import { num, pagedTable, staticTable, str, type Column } from './tables.js';
import { traceSection } from './trace-view.js';

export function renderReport(d: ReportPage): void {
  const I = columnIndex(d.turnColumns);
  const ex = d.expectations;
  const citations = (r: Row) => (num(r, I.citationsValid) as number) + (num(r, I.citationsInvalid) as number);
  const graded = d.turns.some((r) => r[I.judgeScore] != null || citations(r) > 0);
  header('dsbench report: ' + runName(d.run) + ', suite ' + d.run.suiteName,
    ['Status ' + d.run.status + ', started ' + d.run.startedAt + (d.run.endedAt ? ', ended ' + d.run.endedAt : '') + '; database ' + d.db + '; generated ' + d.generatedAt,
      'Targets: ' + d.targets.map((t) => t.name + ' ' + t.url + ' (' + t.api + ' API' + (t.servedByEmulator ? ', emulated' : '') + '), product version ' + (t.productVersion ?? 'unknown') + (t.productVersionOnResume ? ' (' + t.productVersionOnResume + ' on resume)' : '')).join('; ')],
    d.inProgress ? ['running', 'in progress'] : ex.failedItems > 0 ? ['fail', fmtNum(ex.failedItems) + ' of ' + fmtNum(ex.items) + ' items failed their checks'] : ex.items > 0 ? ['pass', 'all checks passed'] : null);
  (d.warnings || []).forEach((w) => app.appendChild(el('p', { className: 'warn', text: w })));
  if (d.summary.length) app.appendChild(staticTable(['target', 'items', 'completed', 'errors', 'turns asked', 'pass rate', 'server p50', 'server p90', 'tokens mean', 'cached tokens mean', 'credits'],
    d.summary.map((s) => [s.target, s.items, s.completed, s.errors, s.questions, fmtPct(s.passRate), fmtMs(s.serverP50), fmtMs(s.serverP90), fmtNum(s.tokens, 0), fmtNum(s.cachedTokens, 0), fmtCredits(s.credits)]), [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]));
  if (d.grades && d.grades.length) {
    heading('Grades and citations');
    const gradesTable = staticTable(['target', 'graded', 'mean score', 'passed', 'unparseable', 'judge errors', 'citations valid', 'invalid', 'unchecked', 'citation validity', 'judge tokens', 'cached'],
      d.grades.map((g) => [g.target, g.graded + ' of ' + g.grades, fmtNum(g.meanScore, 2), g.passed, g.unparseable, g.errors, g.citations.valid, g.citations.invalid, g.citations.unchecked, fmtPct(g.citationValidity), fmtNum(g.judgeTokens, 0), g.cachedGrades]), [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    gradesTable.id = 'grades';
    app.appendChild(gradesTable);
  }
  qualitySection(d);
  if (d.thresholds && d.thresholds.length) {
    heading('Thresholds');
    const thresholdsTable = staticTable(['metric', 'threshold', 'scope', 'value', 'result'], d.thresholds, [0, 0, 0, 1, 0]);
    thresholdsTable.id = 'thresholds';
    app.appendChild(thresholdsTable);
  }
  traceSection(d.traces);
  reportCharts(d, I);

  heading('Questions');
  if (d.answersCapped) app.appendChild(el('p', { className: 'muted', text: 'Answers are embedded for the first ' + fmtNum(d.answersCapped) + ' questions; questions.csv has them all.' }));
  const columns: Array<Column<Row> | null> = [
    { label: 'target', get: (r) => r[I.target] },
    { label: 'question', get: (r) => r[I.id] },
    { label: 'repeat', num: true, get: (r) => r[I.repeat] },
    { label: 'turn', num: true, get: (r) => r[I.turn] },
    { label: 'state', get: (r) => r[I.state] + (r[I.partial] ? ' (partial answer)' : ''), cls: (r) => (r[I.state] === 'completed' ? '' : 'bad') },
    { label: 'error', get: (r) => r[I.errorCode] },
    { label: 'server', num: true, get: (r) => r[I.serverMs], fmt: (r) => fmtMs(num(r, I.serverMs)) },
    { label: 'wall', num: true, get: (r) => r[I.wallMs], fmt: (r) => fmtMs(num(r, I.wallMs)) },
    { label: 'tokens', num: true, get: (r) => r[I.tokens], fmt: (r) => fmtNum(num(r, I.tokens), 0) },
    { label: 'credits', num: true, get: (r) => r[I.credits], fmt: (r) => fmtNum(num(r, I.credits)) },
    graded ? { label: 'judge', num: true, get: (r) => r[I.judgeScore], fmt: (r) => fmtNum(num(r, I.judgeScore), 2) } : null,
    graded ? { label: 'citations valid', num: true, get: (r) => (citations(r) > 0 ? r[I.citationsValid] + ' of ' + citations(r) : null) } : null,
    { label: 'checks', get: (r) => r[I.verdict], cls: (r) => (r[I.verdict] === 'fail' ? 'bad' : r[I.verdict] === 'pass' ? 'good' : '') },
    { label: 'why', get: (r) => r[I.reasons] },
  ];
  const qTable = pagedTable(columns.filter((c): c is Column<Row> => c !== null), d.turns, {
    onlyLabel: 'failures only',
    only: (r) => r[I.verdict] === 'fail' || r[I.state] !== 'completed',
    onRow: (r) => {
      const grading = num(r, I.grading);
      const answer = str(r, I.answer);
      return el('div', { className: 'detail' }, [
        el('h4', { text: r[I.target] + ' / ' + r[I.id] + ' / repeat ' + r[I.repeat] + ' / turn ' + r[I.turn] }),
        r[I.reasons] ? el('p', { className: 'bad', text: String(r[I.reasons]) }) : null,
        r[I.state] !== 'completed' && r[I.errorCode] ? el('p', { className: 'bad', text: r[I.state] + ': ' + r[I.errorCode] + (r[I.errorMessage] ? ': ' + r[I.errorMessage] : '') }) : null,
        // An answer that came with the error: what was written before it stopped, shown beside it.
        r[I.partial] ? el('p', { className: 'warn', text: 'Partial answer: what was written before the ' + (r[I.state] === 'canceled' ? 'cancel' : 'error') + ' stopped it' }) : null,
        el('div', { className: 'answer', text: answer == null ? '(answer not embedded; see questions.csv)' : answer || '(no answer)' }),
        grading != null ? gradingNode(d.gradings[grading] as TurnGrading) : null,
      ]);
    },
  });
  qTable.id = 'questions';
  app.appendChild(qTable);
  if (d.searches.length) {
    heading('Searches');
    const S = d.searchColumns;
    const verdict = columnIndex(S).verdict;
    app.appendChild(pagedTable(S.map((name, i): Column<Row> => ({
      label: name,
      num: /count|Ms$/.test(name),
      get: (r) => r[i],
      fmt: /Ms$/.test(name) ? (r) => fmtMs(num(r, i)) : null,
      cls: name === 'verdict' ? (r) => (r[verdict] === 'complete' || r[verdict] === 'limit_hit' ? '' : 'bad') : null,
    })), d.searches));
  }
}

/** pass rate, pass^k, pass@k, judge score and citation validity per target, and the flaky questions. */
function qualitySection(d: ReportPage): void {
  const q = d.quality;
  const quality = q && q.targets.filter((t) => t.passRate.value != null || t.judgeScore.value != null);
  if (!q || !quality || !quality.length) return;
  heading('Quality and consistency');
  app.appendChild(el('p', { className: 'muted', text: Math.round(q.confidence * 100) + '% intervals resample questions (a question with all its repeats). pass^k: all k repeats pass; pass@k: one does. Flaky: the repeats of a question disagreed.' }));
  const qualityTable = staticTable(['target', 'questions', 'pass rate', 'k', 'pass^k', 'pass@k', 'judge score', 'citation validity', 'flaky', 'quarantined'],
    quality.map((t) => [t.target, t.passRate.clusters, fmtEst(t.passRate), t.k, t.k > 1 ? fmtEst(t.passHatK) : '', t.k > 1 ? fmtEst(t.passAtK) : '', fmtEst(t.judgeScore, true), fmtEst(t.citationValidity), t.flaky.length, t.quarantined.length]), [0, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  qualityTable.id = 'quality';
  app.appendChild(qualityTable);
  const marked = q.questions.filter((x) => x.label === 'flaky' || x.quarantined);
  if (marked.length) app.appendChild(el('ul', { className: 'plain', id: 'flaky' }, marked.slice(0, 50).map((x) =>
    el('li', {}, [el('span', { className: x.label === 'flaky' ? 'bad' : 'muted', text: (x.label === 'flaky' ? 'flaky' : 'stable') + (x.quarantined ? ', quarantined' : '') }), ' ' + x.target + '/' + x.id + ': ' + x.passed + ' of ' + x.repeats + ' repeats passed']),
  )));
}

/** Latency per target, credits and tokens by tag, pass/fail by question and by check, and the trend. */
function reportCharts(d: ReportPage, I: Record<TurnColumn, number>): void {
  heading('Charts');
  const targets = d.targets.map((t) => t.name);
  const lat = histogram(targets.map((t) => ({ label: t, values: d.turns.filter((r) => r[I.target] === t && r[I.state] === 'completed').map((r) => (r[I.serverMs] != null ? num(r, I.serverMs) : num(r, I.wallMs))) })), 30);
  if (lat) chart(chartBox('Latency distribution per target', 'Completed questions; server time (wall time where the server gave none); the last bin holds the slowest 1%.'), { type: 'bar', data: lat, options: { scales: { x: { title: { display: true, text: 'latency' } }, y: { title: { display: true, text: 'questions' }, beginAtZero: true } } } });
  if (d.tags.length) chart(chartBox('Credits and tokens by tag', d.tags.every((t) => t.credits == null) ? 'Not measured: the versioned API reports no credits or tokens.' : 'Sums over the asked questions of each tag.'), {
    type: 'bar',
    data: { labels: d.tags.map((t) => (targets.length > 1 ? t.target + ' / ' : '') + t.tag), datasets: [
      { label: 'credits', data: d.tags.map((t) => t.credits), backgroundColor: COLORS[0], yAxisID: 'y' },
      { label: 'tokens', data: d.tags.map((t) => t.tokens), backgroundColor: COLORS[3], yAxisID: 'y2' }] },
    options: { scales: { y: { beginAtZero: true, title: { display: true, text: 'credits' } }, y2: { beginAtZero: true, position: 'right', title: { display: true, text: 'tokens' }, grid: { drawOnChartArea: false } } } },
  });
  const byQ: Record<string, { pass: number; fail: number }> = {};
  d.turns.forEach((r) => {
    const v = r[I.itemVerdict];
    if (v === 'pass' || v === 'fail') {
      const q = (byQ[String(r[I.id])] = byQ[String(r[I.id])] || { pass: 0, fail: 0 });
      q[v]++;
    }
  });
  const tally = (q: string) => byQ[q] as { pass: number; fail: number };
  const qs = Object.keys(byQ).sort((a, b) => tally(b).fail - tally(a).fail || (a < b ? -1 : 1));
  const qShown = qs.slice(0, 40);
  if (qs.length) chart(chartBox('Pass/fail by question', qs.length > qShown.length ? 'The 40 questions with the most failures, of ' + qs.length + '.' : 'Items of each question (repeats and targets) whose checks all passed, or not.'), {
    type: 'bar',
    data: { labels: qShown, datasets: [{ label: 'pass', data: qShown.map((q) => tally(q).pass), backgroundColor: '#1a7f37' }, { label: 'fail', data: qShown.map((q) => tally(q).fail), backgroundColor: '#cf222e' }] },
    options: { indexAxis: 'y', scales: { x: { stacked: true, beginAtZero: true, ticks: { precision: 0 } }, y: { stacked: true } } },
  });
  const checks = d.expectations.byName || [];
  if (checks.length) chart(chartBox('Pass/fail by check'), {
    type: 'bar',
    data: { labels: checks.map((c) => c.name), datasets: [{ label: 'pass', data: checks.map((c) => c.passed), backgroundColor: '#1a7f37' }, { label: 'fail', data: checks.map((c) => c.failed), backgroundColor: '#cf222e' }] },
    options: { indexAxis: 'y', scales: { x: { stacked: true, beginAtZero: true, ticks: { precision: 0 } }, y: { stacked: true } } },
  });
  trendChart(d.history, 'Trend over the last ' + new Set(d.history.map((h) => h.runId)).size + ' runs of ' + d.run.suiteName);
  endCharts();
}
