// The history page's change points (`report --history N --detect`): the table, and a chart of each series
// that changed with a vertical mark at each change point's night.
import { changeMarks, chart, chartBox, color, endCharts, markCounts, marksNote, type NightMark } from './charts.js';
import type { HistoryDetection } from './data.js';
import { app, el, fmtMs, fmtNum, fmtPct, fmtPts, heading } from './dom.js';
import { staticTable } from './tables.js';

type Change = HistoryDetection['changes'][number];
type Scope = Change['scope'];

/** Series charted at most: the rest are in the table. */
const CHARTED = 12;

export function scopeName(s: Scope): string {
  return (s.kind === 'suite' ? 'suite' : s.kind + ' ' + s.name) + ' (' + s.target + ')';
}

function level(metric: string, v: number): string {
  return metric.indexOf('rate') >= 0 ? fmtPct(v) : metric.indexOf('latency') === 0 ? fmtMs(v) : fmtNum(v);
}

export function changeText(c: Change): string {
  if (c.unit === 'points') return fmtPts(c.change) + ' points (' + fmtPts(c.low) + ' … ' + fmtPts(c.high) + ')';
  return fmtPts(c.change) + '% (' + fmtPts(c.low) + '% … ' + fmtPts(c.high) + '%)';
}

function versionText(c: Change, known: boolean): string {
  const v = c.version;
  if (!known) return 'not recorded';
  if (!v) return 'none in these nights';
  const n = Math.abs(v.nights);
  return v.from + ' → ' + v.to + ' at run ' + v.runId + ', ' + (v.nights === 0 ? 'the same night' : n + ' night' + (n === 1 ? '' : 's') + (v.nights < 0 ? ' before' : ' after'));
}

/** `versions`: the nights the instance's version changed, marked on every chart beside the change points. */
export function renderChanges(d: HistoryDetection, runs: number[], versions: readonly NightMark[]): void {
  heading('Change points');
  if (d.tooFew) {
    app.appendChild(el('p', { id: 'change-points-too-few', className: 'bad', text: 'Change points need at least ' + d.need + ' nights; this history has ' + d.nights + '. Nothing was looked for: record ' + (d.need - d.nights) + ' more, then ask for --history ' + d.need + ' or more.' }));
    return;
  }
  app.appendChild(el('p', { className: 'muted', text: d.changes.length + ' change point' + (d.changes.length === 1 ? '' : 's') + ' in ' + d.series + ' series over ' + d.nights + ' nights (seed ' + d.seed + '). Method: ' + d.method + '.' }));
  const table = staticTable(['night', 'started', 'scope', 'metric', 'before → after', 'change (95% interval)', 'p', 'nearest version change'],
    d.changes.map((c) => ['run ' + c.runId, c.startedAt, scopeName(c.scope), c.metric, level(c.metric, c.before) + ' → ' + level(c.metric, c.after), changeText(c), fmtNum(c.p, 3), versionText(c, d.versionsKnown)]), [1, 0, 0, 0, 1, 1, 1, 0]);
  table.id = 'change-points';
  app.appendChild(table);
  d.changedSeries.slice(0, CHARTED).forEach((s, j) => {
    const marks: NightMark[] = d.changes.filter((c) => c.metric === s.metric && sameScope(c.scope, s.scope)).map((c) => ({ index: c.night, label: 'run ' + c.runId + ': ' + changeText(c).split(' (')[0] }));
    const all = marks.concat(versions.filter((v) => v.target === s.scope.target));
    const rate = s.metric.indexOf('rate') >= 0;
    const latency = s.metric.indexOf('latency') === 0;
    const values = s.values.map((v) => (v == null ? null : rate ? v * 100 : latency ? v / 1000 : v));
    const canvas = chartBox(s.metric + ': ' + scopeName(s.scope), marksNote(all).trim());
    markCounts(canvas, all);
    chart(canvas, {
      type: 'line',
      data: { labels: runs.map((r) => 'run ' + r), datasets: [{ label: s.metric + (rate ? ' (%)' : latency ? ' (s)' : ''), data: values, borderColor: color(j), backgroundColor: color(j) }] },
      options: { spanGaps: true, scales: { y: { beginAtZero: rate } } },
      plugins: [changeMarks(all)],
    });
  });
  endCharts();
}

function sameScope(a: Scope, b: Scope): boolean {
  return a.target === b.target && a.kind === b.kind && a.name === b.name;
}
