// Charts, drawn by Chart.js (its UMD build, inlined before this script by page.ts, defines the global `Chart`).
import type { Chart as ChartJs, ChartConfiguration, ChartDataset, ChartOptions, ChartType, Plugin } from 'chart.js';
import type { HistoryRow } from './data.js';
import { app, el, fmtMs } from './dom.js';

declare const Chart: typeof ChartJs;

export const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d'];

/** The j-th series colour, the palette repeating. */
export function color(j: number): string {
  return COLORS[j % COLORS.length] as string;
}

/** Charts drawn so far: the page reports their number when it is ready (data-charts). */
export const charts: object[] = [];

let grid: HTMLElement | null = null;

/** A titled chart box in the current grid of charts (started here if none is open). */
export function chartBox(title: string, note?: string | null): HTMLCanvasElement {
  if (!grid) {
    grid = el('div', { className: 'grid' });
    app.appendChild(grid);
  }
  const canvas = el('canvas');
  grid.appendChild(el('div', { className: 'chart' }, [el('h3', { text: title }), el('div', { className: 'canvas' }, [canvas]), note ? el('p', { className: 'note', text: note }) : null]));
  return canvas;
}

/** Closes the grid of charts: the next chart box starts a new one. */
export function endCharts(): void {
  grid = null;
}

export function chart<T extends ChartType>(canvas: HTMLCanvasElement, config: ChartConfiguration<T>): void {
  // Drawn once, at once (no animation), filling its box.
  const base: ChartOptions = { animation: false, responsive: true, maintainAspectRatio: false };
  config.options = Object.assign(base, config.options || {}) as ChartOptions<T>;
  charts.push(new Chart(canvas, config));
}

export interface Series {
  label: string;
  values: Array<number | null>;
}

/** Histograms of several series over shared bins, so the targets' (or sides') can be read against each other. */
export function histogram(series: Series[], bins: number): { labels: string[]; datasets: Array<ChartDataset<'bar', number[]>> } | null {
  const all: number[] = [];
  series.forEach((s) => s.values.forEach((v) => { if (v != null) all.push(v); }));
  if (all.length === 0) return null;
  all.sort((a, b) => a - b);
  const lo = all[0] as number;
  let hi = all[Math.min(all.length - 1, Math.floor(all.length * 0.99))] as number;
  if (hi <= lo) hi = lo + 1;
  const width = (hi - lo) / bins;
  const labels: string[] = [];
  for (let i = 0; i < bins; i++) labels.push(fmtMs(lo + width * i) + (i === bins - 1 ? '+' : ''));
  const datasets = series.map((s, j) => {
    const counts: number[] = new Array(bins).fill(0);
    s.values.forEach((v) => {
      if (v == null) return;
      const bin = Math.max(0, Math.min(bins - 1, Math.floor((v - lo) / width)));
      counts[bin] = (counts[bin] as number) + 1;
    });
    return { label: s.label, data: counts, backgroundColor: color(j) + 'b0', borderColor: color(j), borderWidth: 1, barPercentage: 1, categoryPercentage: 0.9 };
  });
  return { labels, datasets };
}

/** A night marked on a chart: a change point (red, labelled at the top) or a change of the instance's version (purple, at the bottom). */
export interface NightMark {
  index: number;
  label: string;
  version?: boolean;
  /** A version change's target. */
  target?: string;
}

/** The nights on which a target's recorded product version changed, as marks at `runs`' indexes. */
export function versionMarks(rows: readonly HistoryRow[], runs: readonly number[]): NightMark[] {
  const several = rows.some((r) => r.target !== rows[0]?.target);
  return rows.filter((r) => r.versionChanged).map((r) => ({ index: runs.indexOf(r.runId), label: 'version ' + (several ? r.target + ' ' : '') + r.productVersion, version: true, target: r.target }));
}

/** A vertical line at each marked night, labelled: dashed red for a change point, dotted purple for a version change. */
export function changeMarks(marks: readonly NightMark[]): Plugin<'line'> {
  return {
    id: 'changeMarks',
    afterDatasetsDraw(c: ChartJs<'line'>) {
      const x = c.scales['x'];
      const area = c.chartArea;
      if (!x) return;
      const ctx = c.ctx;
      ctx.save();
      let top = 0;
      let bottom = 0;
      marks.forEach((m) => {
        const at = x.getPixelForValue(m.index);
        const tint = m.version ? '#7c3aed' : '#dc2626';
        ctx.strokeStyle = tint;
        ctx.setLineDash(m.version ? [2, 3] : [5, 3]);
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.moveTo(at, area.top);
        ctx.lineTo(at, area.bottom);
        ctx.stroke();
        ctx.fillStyle = tint;
        ctx.font = '11px sans-serif';
        // Labels stacked (changes from the top, versions from the bottom), so that two on one night stay readable.
        const y = m.version ? area.bottom - 4 - 13 * bottom++ : area.top + 12 + 13 * top++;
        ctx.fillText(m.label, Math.max(area.left, Math.min(at + 3, area.right - ctx.measureText(m.label).width)), y);
      });
      ctx.restore();
    },
  };
}

/** What the marks on a chart mean, for its caption. */
export function marksNote(marks: readonly NightMark[]): string {
  return (marks.some((m) => !m.version) ? ' Dashed red: a change point, the first night of the new level.' : '') + (marks.some((m) => m.version) ? ' Dotted purple: the instance\'s version changed.' : '');
}

/** The counts of each kind of mark, as attributes a test can read. */
export function markCounts(canvas: HTMLCanvasElement, marks: readonly NightMark[]): void {
  canvas.setAttribute('data-change-marks', String(marks.filter((m) => !m.version).length));
  canvas.setAttribute('data-version-marks', String(marks.filter((m) => m.version).length));
}

/** Server time (median and p90) and pass rate per run and target, oldest run first; `marks` at runs' indexes. */
export function trendChart(history: readonly HistoryRow[] | undefined, title: string, marks: readonly NightMark[] = []): void {
  if (!history || history.length < 2) return;
  const runs: number[] = [];
  const byTarget: Record<string, Record<number, HistoryRow>> = {};
  history.forEach((h) => {
    if (runs.indexOf(h.runId) < 0) runs.push(h.runId);
    (byTarget[h.target] = byTarget[h.target] || {})[h.runId] = h;
  });
  const datasets: Array<ChartDataset<'line', Array<number | null>>> = [];
  Object.keys(byTarget).forEach((t, j) => {
    const c = color(j);
    const pick = (f: (h: HistoryRow) => number | null) => runs.map((r) => { const h = byTarget[t]?.[r]; return h ? f(h) : null; });
    datasets.push({ label: t + ' server p50 (s)', data: pick((h) => (h.serverMsP50 == null ? null : h.serverMsP50 / 1000)), borderColor: c, backgroundColor: c, yAxisID: 'y' });
    datasets.push({ label: t + ' server p90 (s)', data: pick((h) => (h.serverMsP90 == null ? null : h.serverMsP90 / 1000)), borderColor: c, backgroundColor: c, borderDash: [6, 4], yAxisID: 'y' });
    datasets.push({ label: t + ' pass rate (%)', data: pick((h) => (h.passRate == null ? null : h.passRate * 100)), borderColor: c + '80', backgroundColor: c + '80', borderDash: [2, 2], yAxisID: 'y2' });
  });
  const canvas = chartBox(title, 'Solid: median server time; dashed: p90; dotted: pass rate (right axis).' + marksNote(marks));
  markCounts(canvas, marks);
  chart(canvas, {
    type: 'line',
    plugins: [changeMarks(marks)],
    data: { labels: runs.map((r) => 'run ' + r), datasets },
    options: { spanGaps: true, scales: { y: { title: { display: true, text: 'seconds' }, beginAtZero: true }, y2: { position: 'right', min: 0, max: 100, title: { display: true, text: 'pass rate %' }, grid: { drawOnChartArea: false } } } },
  });
}
