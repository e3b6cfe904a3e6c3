// The comparison page (`dsbench compare`): gates, outcomes, charts, the judge's pairwise verdicts, metrics
// and every pair, with both answers side by side.
import type { ChartDataset } from 'chart.js';
import { answerNode, diff, listNode, sideGrade } from './answers.js';
import { chart, chartBox, endCharts, histogram } from './charts.js';
import type { ComparedMetric, ComparePage, OutcomeChange, Pairwise, Rate, Row } from './data.js';
import { app, el, fmtMs, fmtNum, fmtP, fmtPct, fmtPts, fmtSigned, header, heading, runName } from './dom.js';
import { num, pagedTable, staticTable, type Column } from './tables.js';

/** Indexes of the pair rows' columns. */
type PairIndex = Record<'kind' | 'pairing' | 'target' | 'id' | 'repeat' | 'turn' | 'sb' | 'sc' | 'change' | 'lb' | 'lc' | 'cb' | 'cc' | 'sim' | 'jac' | 'eb' | 'ec' | 'echange' | 'jb' | 'jc' | 'answer' | 'tb' | 'tc', number>;

export function renderCompare(d: ComparePage): void {
  const P = d.pairColumns;
  const c = (n: string) => P.indexOf(n);
  const I: PairIndex = { kind: c('kind'), pairing: c('pairing'), target: c('target'), id: c('itemId'), repeat: c('repeat'), turn: c('turn'), sb: c('stateBaseline'), sc: c('stateCandidate'), change: c('stateChange'), lb: c('latencyBaseline'), lc: c('latencyCandidate'), cb: c('creditsBaseline'), cc: c('creditsCandidate'), sim: c('answerSimilarity'), jac: c('sourcesJaccard'), eb: c('expectBaseline'), ec: c('expectCandidate'), echange: c('expectChange'), jb: c('judgeBaseline'), jc: c('judgeCandidate'), answer: c('answer'), tb: c('traceBaseline'), tc: c('traceCandidate') };
  header('dsbench compare: ' + runName(d.baseline.run) + ' vs ' + runName(d.candidate.run),
    ['Baseline ' + runName(d.baseline.run) + (d.baseline.target ? ', target ' + d.baseline.target : '') + ' in ' + d.baseline.db + '; candidate ' + runName(d.candidate.run) + (d.candidate.target ? ', target ' + d.candidate.target : '') + ' in ' + d.candidate.db,
      'Product version: ' + d.versions,
      'Suite ' + d.candidate.run.suiteName + '; ' + (d.bootstrap.confidence * 100) + '% intervals from a paired bootstrap (' + d.bootstrap.resamples + ' resamples, seed ' + d.bootstrap.seed + '); generated ' + d.generatedAt],
    d.failed || (d.pairwise && d.pairwise.failedGates.length) ? ['fail', 'FAILED'] : ['pass', 'passed']);
  app.appendChild(el('p', { id: 'verdict', className: /REGRESSED|SUSPECT|UNDECIDED/.test(d.verdictLine) ? 'bad' : '', text: d.verdictLine }));
  heading('Gates');
  app.appendChild(staticTable(['gate', 'on', 'result', 'detail'], d.gates.map((g) => [g.name, g.enabled ? 'on' : 'off', g.outcome, g.detail])));
  if (d.edited.count) {
    const how = d.edited.inGates ? 'judged by the gates as any other item (--include-edited)' : 'judged by no gate (--include-edited judges them)';
    app.appendChild(el('p', { className: 'muted', text: 'Edited under the same id, ' + how + ': ' + d.edited.count + ' items: ' + d.edited.ids.join(', ') }));
  }
  outcomesSection(d);
  const pw = d.pairwise && d.pairwise.result;
  compareCharts(d, I, pw);
  if (pw && d.pairwise) pairwiseSection(pw, d.pairwise.failedGates);
  heading('Metrics');
  app.appendChild(staticTable(['metric', 'pairs', 'questions', 'baseline median', 'candidate median', 'median change', 'interval', 'relative', 'relative interval', 'threshold', 'detectable', 'verdict'],
    d.metrics.map((m) => {
      const f = m.unit === 'ms' ? fmtMs : (v: number | null) => fmtNum(v);
      return [metricLabel(m), m.n, m.clusters, f(m.baselineMedian), f(m.candidateMedian), fmtSigned(m.delta, m.unit), m.deltaLow == null ? '' : fmtNum(m.deltaLow) + ' … ' + fmtNum(m.deltaHigh), fmtPct(m.relative), m.relativeLow == null ? '' : fmtPct(m.relativeLow) + ' … ' + fmtPct(m.relativeHigh), m.threshold == null ? 'off' : fmtPct(m.threshold), m.detectable == null ? '' : '+' + fmtPct(m.detectable), m.judgement];
    }),
    [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]));
  if (d.metricsNote) app.appendChild(el('p', { className: 'muted', text: d.metricsNote }));
  pairsSection(d, I);
}

/** A latency with the clock its pairs were timed by: server, wall, or both with their counts. */
function metricLabel(m: ComparedMetric): string {
  const c = m.clock;
  if (!c || c.server + c.wall === 0) return m.metric;
  if (c.wall === 0) return m.metric + ' (server)';
  if (c.server === 0) return m.metric + ' (wall)';
  return m.metric + ' (server ' + c.server + ', wall ' + c.wall + ')';
}

/** The output-limit rates a page has (none in pages written before they were told apart). */
function truncationRates(truncated: OutcomeChange | undefined, noAnswer: OutcomeChange | undefined): Array<[string, OutcomeChange]> {
  const rows: Array<[string, OutcomeChange]> = [];
  if (truncated) rows.push(['truncated rate', truncated]);
  if (noAnswer) rows.push(['truncated-no-answer rate', noAnswer]);
  return rows;
}

function outcomesSection(d: ComparePage): void {
  const o = d.outcomes;
  if (!o) return;
  heading('Outcomes');
  app.appendChild(el('p', { className: 'muted', text: 'Paired by item; intervals (' + Math.round(d.bootstrap.confidence * 100) + '%) resample questions; p: one-sided sign-flip test over questions. Changes in points.' }));
  const outcomeRows = [
    ['error rate', o.errorRate.n, o.errorRate.clusters, fmtPct(o.errorRate.baseline), fmtPct(o.errorRate.candidate), fmtPts(o.errorRate.change), o.errorRate.low == null ? '' : fmtPts(o.errorRate.low) + ' … ' + fmtPts(o.errorRate.high), fmtP(o.errorRate.test.pUpper) + ' (rise)'],
    ...truncationRates(o.truncatedRate, o.truncatedNoAnswerRate).map(([name, r]) => [name, r.n, r.clusters, fmtPct(r.baseline), fmtPct(r.candidate), fmtPts(r.change), r.low == null ? '' : fmtPts(r.low) + ' … ' + fmtPts(r.high), fmtP(r.test.pUpper) + ' (rise)']),
    ['pass rate', o.passRate.n, o.passRate.clusters, fmtPct(o.passRate.baseline), fmtPct(o.passRate.candidate), fmtPts(o.passRate.change), o.passRate.low == null ? '' : fmtPts(o.passRate.low) + ' … ' + fmtPts(o.passRate.high), fmtP(o.passRate.test.pLower) + ' (drop)'],
    ['pass^' + o.passHatK.k, '', o.passHatK.questions, fmtPct(o.passHatK.baseline), fmtPct(o.passHatK.candidate), fmtPts(o.passHatK.change), '', fmtP(o.passHatK.test.pLower) + ' (drop)'],
  ];
  const outcomesTable = staticTable(['outcome', 'items', 'questions', 'baseline', 'candidate', 'change', 'interval', 'p'], outcomeRows, [0, 1, 1, 1, 1, 1, 1, 1]);
  outcomesTable.id = 'outcomes';
  app.appendChild(outcomesTable);
  if (o.quarantined.clusters) app.appendChild(el('p', { className: 'muted', text: 'Quarantined (judged by no gate): ' + o.quarantined.ids.join(', ') }));
}

/** Each metric's paired change with its interval, latency of both sides, what changed and the judge's verdicts. */
function compareCharts(d: ComparePage, I: PairIndex, pw: Pairwise | null): void {
  heading('Charts');
  const metrics = d.metrics.filter((m) => m.relative != null);
  if (metrics.length) {
    const labels = metrics.map((m) => m.metric + ' (' + m.judgement + ')');
    // Floating bars ([low, high]) and points on a category axis: beyond what Chart.js's dataset types say of one chart.
    const datasets = [
      { type: 'bar', label: 'interval', data: metrics.map((m) => [(m.relativeLow as number) * 100, (m.relativeHigh as number) * 100]), backgroundColor: metrics.map((m) => (m.judgement === 'regressed' ? '#cf222e90' : m.judgement === 'improved' ? '#1a7f3790' : '#59636e60')) },
      { type: 'scatter', label: 'median change', data: metrics.map((m, i) => ({ x: (m.relative as number) * 100, y: labels[i] })), backgroundColor: '#1f2328', pointRadius: 5 },
      { type: 'scatter', label: 'threshold', data: metrics.filter((m) => m.threshold != null).map((m) => ({ x: (m.threshold as number) * 100, y: labels[metrics.indexOf(m)] })), backgroundColor: '#9a6700', pointStyle: 'line', pointRadius: 12, borderColor: '#9a6700', borderWidth: 3 },
    ] as unknown as Array<ChartDataset<'bar'>>;
    chart(chartBox('Paired change per metric, with its interval', 'Bars: the ' + (d.bootstrap.confidence * 100) + '% interval of the median paired change; dots: the change itself; dashed: the threshold.'), {
      type: 'bar',
      data: { labels, datasets },
      options: { indexAxis: 'y', scales: { x: { title: { display: true, text: 'change, % of the baseline median' } }, y: { type: 'category', labels } } },
    });
  }
  const questions = d.pairs.filter((r) => r[I.kind] === 'question');
  const lat = histogram([
    { label: 'baseline', values: questions.map((r) => num(r, I.lb)) },
    { label: 'candidate', values: questions.map((r) => num(r, I.lc)) },
  ], 30);
  if (lat) chart(chartBox('Question latency, baseline and candidate', 'Server time where both sides have it, else wall time.'), { type: 'bar', data: lat, options: { scales: { y: { beginAtZero: true, title: { display: true, text: 'questions' } } } } });
  const sc = d.stateChanges;
  chart(chartBox('What changed'), {
    type: 'bar',
    data: { labels: ['same', 'new errors', 'fixed', 'other changes', 'in progress', 'new check failures', 'fixed checks'], datasets: [{ label: 'pairs', data: [sc.same, sc.new_error, sc.fixed, sc.changed, sc.in_progress, d.newFailures, d.fixedFailures], backgroundColor: ['#59636e', '#cf222e', '#1a7f37', '#9a6700', '#0891b2', '#cf222e', '#1a7f37'] }] },
    options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true } } },
  });
  if (pw) chart(chartBox("The judge's pairwise verdicts", 'Each pair judged twice with the order swapped: a win or a loss needs both verdicts to agree; undecided pairs (no two verdicts) are left out of the rates.'), {
    type: 'bar',
    data: { labels: ['candidate wins', 'ties', 'candidate loses', 'undecided'], datasets: [{ label: 'pairs', data: [pw.wins, pw.ties, pw.losses, pw.undecided], backgroundColor: ['#1a7f37', '#59636e', '#cf222e', '#9a6700'] }] },
    options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true } } },
  });
  endCharts();
}

function pairwiseSection(pw: Pairwise, failedGates: string[]): void {
  heading('Judge: pairwise comparison');
  const rate = (r: Rate | undefined) => (r ? fmtPct(r.value) + ' (' + fmtPct(r.low) + ' … ' + fmtPct(r.high) + ')' : 'no decided pair');
  const cv = pw.citationValidity;
  const pwTable = staticTable(['measure', 'value'], [
    ['pairs judged', pw.pairs + ' (' + pw.undecided + ' undecided), of ' + pw.questions + ' question' + (pw.questions === 1 ? '' : 's') + ' (the intervals are over questions)'],
    ['candidate wins', pw.wins + ', ' + rate(pw.winRate)],
    ['ties', pw.ties + ', ' + rate(pw.tieRate)],
    ['candidate loses', pw.losses + ', ' + rate(pw.lossRate)],
    ['judge score change', pw.scoreDelta ? fmtSigned(pw.scoreDelta.mean) + ' over ' + pw.scoreDelta.pairs + ' turns graded in both runs' : 'no turn graded in both runs'],
    ['citation validity', (cv.baseline == null ? '–' : fmtPct(cv.baseline)) + ' → ' + (cv.candidate == null ? '–' : fmtPct(cv.candidate)) + (cv.delta == null ? '' : ' (' + fmtSigned(cv.delta * 100) + ' points)')],
    ['judge calls', pw.judgeCalls + ' (' + pw.cacheHits + ' from the cache)'],
  ]);
  pwTable.id = 'pairwise';
  app.appendChild(pwTable);
  failedGates.forEach((g) => app.appendChild(el('p', { className: 'bad', text: 'GATE FAILED: ' + g })));
  pw.problems.forEach((p) => app.appendChild(el('p', { className: 'muted', text: p })));
}

/** Every pair in a paged table; a click shows both answers side by side, their differences marked. */
/** A link to the instance's trace of one side (run --trace); only http(s) links become anchors. */
function traceAnchor(url: unknown, text: string): HTMLAnchorElement | null {
  return typeof url === 'string' && /^https?:\/\//i.test(url) ? el('a', { href: url, rel: 'noopener noreferrer nofollow', target: '_blank', text }) : null;
}

function pairsSection(d: ComparePage, I: PairIndex): void {
  const judged = d.pairs.some((r) => r[I.jb] != null || r[I.jc] != null);
  heading('Answers side by side');
  if (d.answersCapped) app.appendChild(el('p', { className: 'muted', text: 'Answers are embedded for ' + fmtNum(d.answersCapped) + ' question pairs (changed pairs first); compare.csv lists every pair.' }));
  const sideBySide = (r: Row) => {
    const index = num(r, I.answer);
    const a = index ? d.answers[index - 1] : null;
    const box = el('div', { className: 'detail', id: 'side-by-side' });
    box.appendChild(el('h4', { text: r[I.id] + ' / repeat ' + r[I.repeat] + (r[I.turn] == null ? '' : ' / turn ' + r[I.turn]) + ': ' + (r[I.sb] || '-') + ' → ' + (r[I.sc] || '-') + (r[I.sim] == null ? '' : '; answer similarity ' + fmtNum(num(r, I.sim), 3)) + (r[I.jac] == null ? '' : ', sources ' + fmtNum(num(r, I.jac), 3)) }));
    const traces = [traceAnchor(r[I.tb], 'baseline trace'), traceAnchor(r[I.tc], 'candidate trace')].filter((x): x is HTMLAnchorElement => x !== null);
    if (traces.length) box.appendChild(el('p', {}, traces.flatMap((x, i) => (i ? [' · ', x] : [x]))));
    if (!a) {
      box.appendChild(el('p', { className: 'muted', text: r[I.kind] === 'search' ? 'A search: counts and verdicts are in the table.' : 'Answers not embedded for this pair.' }));
      return box;
    }
    if (a.question) box.appendChild(el('p', { text: 'Q: ' + a.question }));
    const parts = diff(a.baseline || '', a.candidate || '');
    const left = parts ? answerNode(parts[0], 'del') : el('div', { className: 'answer', text: a.baseline || '' });
    const right = parts ? answerNode(parts[1], 'ins') : el('div', { className: 'answer', text: a.candidate || '' });
    box.appendChild(el('div', { className: 'sides' }, [
      el('div', { className: 'side baseline' }, [el('h4', { text: 'Baseline, ' + runName(d.baseline.run) + ' (' + (r[I.sb] || 'absent') + ', checks ' + (r[I.eb] || '-') + ')' }), left, a.reasonsBaseline ? el('p', { className: 'bad', text: a.reasonsBaseline }) : null, sideGrade(a.gradeBaseline), el('h4', { text: 'Sources' }), listNode(a.sourcesBaseline)]),
      el('div', { className: 'side candidate' }, [el('h4', { text: 'Candidate, ' + runName(d.candidate.run) + ' (' + (r[I.sc] || 'absent') + ', checks ' + (r[I.ec] || '-') + ')' }), right, a.reasonsCandidate ? el('p', { className: 'bad', text: a.reasonsCandidate }) : null, sideGrade(a.gradeCandidate), el('h4', { text: 'Sources' }), listNode(a.sourcesCandidate)]),
    ]));
    return box;
  };
  const columns: Array<Column<Row> | null> = [
    { label: 'kind', get: (r) => r[I.kind] },
    { label: 'target', get: (r) => r[I.target] },
    { label: 'item', get: (r) => r[I.id] },
    { label: 'repeat', num: true, get: (r) => r[I.repeat] },
    { label: 'turn', num: true, get: (r) => r[I.turn] },
    { label: 'pairing', get: (r) => r[I.pairing] },
    { label: 'baseline', get: (r) => r[I.sb] },
    { label: 'candidate', get: (r) => r[I.sc] },
    { label: 'change', get: (r) => r[I.change], cls: (r) => (r[I.change] === 'new_error' ? 'bad' : r[I.change] === 'fixed' ? 'good' : '') },
    { label: 'latency b', num: true, get: (r) => r[I.lb], fmt: (r) => fmtMs(num(r, I.lb)) },
    { label: 'latency c', num: true, get: (r) => r[I.lc], fmt: (r) => fmtMs(num(r, I.lc)) },
    { label: 'credits b', num: true, get: (r) => r[I.cb] },
    { label: 'credits c', num: true, get: (r) => r[I.cc] },
    { label: 'similarity', num: true, get: (r) => r[I.sim], fmt: (r) => fmtNum(num(r, I.sim), 3) },
    judged ? { label: 'judge b', num: true, get: (r) => r[I.jb], fmt: (r) => fmtNum(num(r, I.jb), 2) } : null,
    judged ? { label: 'judge c', num: true, get: (r) => r[I.jc], fmt: (r) => fmtNum(num(r, I.jc), 2) } : null,
    { label: 'checks', get: (r) => r[I.echange], cls: (r) => (r[I.echange] === 'new_failure' ? 'bad' : r[I.echange] === 'fixed' ? 'good' : '') },
  ];
  const table = pagedTable(columns.filter((col): col is Column<Row> => col !== null), d.pairs, {
    onlyLabel: 'changes only',
    only: (r) => !!(r[I.change] && r[I.change] !== 'same') || !!(r[I.echange] && r[I.echange] !== 'same') || r[I.pairing] !== 'paired',
    onRow: sideBySide,
  });
  table.id = 'pairs';
  app.appendChild(table);
  const first = d.pairs.filter((r) => r[I.answer])[0];
  if (first) table.show(first);
}
