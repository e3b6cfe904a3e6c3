// The viewer that runs inside the HTML pages: it reads the embedded JSON and draws the page its kind names.
// Bundled into one script by esbuild (src/report/html/client-script.ts).
import { charts } from './charts.js';
import { renderCompare } from './compare-view.js';
import type { PageData } from './data.js';
import { app, el } from './dom.js';
import { renderHistory } from './history-view.js';
import { renderReport } from './report-view.js';

const data = JSON.parse((document.getElementById('dsbench-data') as HTMLElement).textContent as string) as PageData;

try {
  if (data.kind === 'report') renderReport(data);
  else if (data.kind === 'compare') renderCompare(data);
  else renderHistory(data);
  document.body.setAttribute('data-charts', String(charts.length));
  document.body.setAttribute('data-ready', 'true');
  if (window.performance && performance.mark) performance.mark('dsbench-ready');
} catch (e) {
  app.appendChild(el('p', { className: 'bad', text: 'This report could not be drawn: ' + e }));
  throw e;
}
