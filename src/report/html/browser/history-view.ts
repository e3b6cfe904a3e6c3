// The history page (`dsbench history`): the trend, credits and errors per run, the runs, and each question
// night by night.
import { changeText, renderChanges } from './change-view.js';
import { chart, chartBox, color, endCharts, trendChart, versionMarks } from './charts.js';
import type { HistoryPage, HistoryRow } from './data.js';
import { app, el, fmtCredits, fmtMs, fmtPct, header, heading } from './dom.js';
import { staticTable } from './tables.js';

export function renderHistory(d: HistoryPage): void {
  header('dsbench history: suite ' + d.suite, ['The last ' + new Set(d.rows.map((r) => r.runId)).size + ' runs in ' + d.db + ', oldest first; generated ' + d.generatedAt, 'The pass rate is of the items that did not err (an error counts once, under errors), as compare\'s.']);
  const runs: number[] = [];
  d.rows.forEach((h) => { if (runs.indexOf(h.runId) < 0) runs.push(h.runId); });
  const versions = versionMarks(d.rows, runs);
  if (d.detection) renderChanges(d.detection, runs, versions);
  heading('Charts');
  // The suite's change points of the metrics this chart draws.
  const drawn = ['latency p50', 'latency p90', 'pass rate'];
  const marks = (d.detection?.changes || []).filter((c) => c.scope.kind === 'suite' && drawn.indexOf(c.metric) >= 0)
    .map((c) => ({ index: c.night, label: 'run ' + c.runId + ' ' + c.metric + ' ' + changeText(c).split(' (')[0] }));
  trendChart(d.rows, 'Latency and pass rate per run', marks.concat(versions));
  const targets: string[] = [];
  d.rows.forEach((h) => { if (targets.indexOf(h.target) < 0) targets.push(h.target); });
  // One bar per run and target: the row's value, or a gap where the target was not in the run.
  const perRun = (shift: number, value: (h: HistoryRow) => number | null) =>
    targets.map((t, j) => ({ label: t, backgroundColor: color(j + shift), data: runs.map((r) => { const h = d.rows.filter((x) => x.runId === r && x.target === t)[0]; return h ? value(h) : null; }) }));
  chart(chartBox('Credits per run', d.rows.every((r) => r.creditsSum == null) ? 'Not measured: the versioned API reports no credits.' : null), {
    type: 'bar',
    data: { labels: runs.map((r) => 'run ' + r), datasets: perRun(0, (h) => h.creditsSum) },
    options: { scales: { y: { beginAtZero: true } } },
  });
  chart(chartBox('Questions in error per run', 'Items that ended in an error the suite did not expect; an expected error is no failure.'), {
    type: 'bar',
    data: { labels: runs.map((r) => 'run ' + r), datasets: perRun(1, (h) => h.failed) },
    options: { scales: { y: { beginAtZero: true } } },
  });
  endCharts();
  heading('Runs');
  app.appendChild(staticTable(['run', 'label', 'started', 'status', 'target', 'version', 'items', 'completed', 'errors', 'turns asked', 'pass rate', 'server p50', 'server p90', 'credits'],
    d.rows.map((r) => [r.runId, r.label, r.startedAt, r.status, r.target, (r.productVersion ?? 'unknown') + (r.versionChanged ? ' (changed)' : ''), r.items, r.completed, r.failed + (r.expectedErrors > 0 ? ' (+' + r.expectedErrors + ' expected)' : ''), r.questions, fmtPct(r.passRate), fmtMs(r.serverMsP50), fmtMs(r.serverMsP90), fmtCredits(r.creditsSum)]), [1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]));
  if (d.nothingAsked.length > 0) {
    const listed = d.nothingAsked.map((r) => r.id + (r.label ? ' (' + r.label + ')' : '') + ' ' + r.startedAt).join(', ');
    app.appendChild(el('p', { id: 'nothing-asked', className: 'bad', text: 'Left out of the trend, ' + d.nothingAsked.length + ' run' + (d.nothingAsked.length === 1 ? '' : 's') + ' that asked nothing (every item skipped before it was sent, e.g. a refused token): ' + listed }));
  }
  questionGrid(d);
}

/** Each question's checked repeats that passed, per run, with its flaky and quarantined marks. */
function questionGrid(d: HistoryPage): void {
  const grid = d.grid;
  if (!grid || !grid.rows.length) return;
  heading('Questions night by night');
  app.appendChild(el('p', { className: 'muted', text: 'Repeats whose checks passed, of those checked, per run; repeats that ended in an error are left out of the marks. Flaky: both a pass and a fail on one night, or outcomes that flip between nights more than once. Regressed (or fixed) at a run: every night passed up to it and failed from it on (or the reverse): a change to look into, not noise to quarantine. Quarantined questions are judged by no compare gate. "edited:" marks the first night after the question was edited under the same id: its series starts again there.' }));
  type Cell = (typeof grid.rows)[number]['cells'][number];
  const cellClass = (c: Cell) => (!c || !c.checked ? 'muted' : c.passed === c.checked ? 'good' : c.passed === 0 ? 'bad' : '');
  const gridTable = el('table', { id: 'question-grid' }, [
    el('thead', {}, [el('tr', {}, ['question', 'mark'].concat(grid.runs.map((r) => 'run ' + r.id)).map((h, i) => el('th', { className: i > 1 ? 'num' : '', text: h })))]),
    el('tbody', {}, grid.rows.map((row) => {
      const mark = [row.flaky ? 'flaky' : '', row.step ? row.step.direction + ' at run ' + row.step.runId : '', row.quarantined ? 'quarantined' : ''].filter(Boolean).join(', ');
      return el('tr', {}, [el('td', { text: (grid.rows.some((x) => x.target !== row.target) ? row.target + '/' : '') + row.id }), el('td', { className: row.flaky || row.step?.direction === 'regressed' ? 'bad' : row.step ? 'good' : 'muted', text: mark })].concat(row.cells.map((c) =>
        el('td', { className: 'num ' + cellClass(c) + (c && c.edited ? ' edited' : ''), text: (c && c.edited ? 'edited: ' : '') + (!c || !c.checked ? '–' : c.passed + '/' + c.checked + (c.errored ? ' E' + c.errored : '')) }),
      )));
    })),
  ]);
  app.appendChild(gridTable);
}
