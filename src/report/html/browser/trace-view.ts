// The run's traces (run --trace): the slowest and the failed items, each with a link to the instance's trace,
// and the slowest spans of each trace --trace-fetch saved.
import type { TracePanel, TraceItem } from './data.js';
import { app, el, fmtMs, heading } from './dom.js';

/** Only http(s) links become anchors (the store keeps no other; server text is untrusted all the same). */
function link(t: TraceItem): Node | string {
  if (t.url && /^https?:\/\//i.test(t.url)) return el('a', { href: t.url, rel: 'noopener noreferrer nofollow', target: '_blank', text: 'trace' });
  return t.id ? 'trace id ' + t.id : '';
}

function table(rows: readonly TraceItem[]): HTMLTableElement {
  const head = el('tr', {}, ['target', 'item', 'repeat', 'outcome', 'time', 'trace'].map((h) => el('th', { text: h })));
  const body = rows.map((r) => el('tr', {}, [r.target, r.item, String(r.repeat), r.outcome ?? '', fmtMs(r.ms)].map((v) => el('td', { text: v })).concat([el('td', {}, [link(r)])])));
  return el('table', { className: 'traces' }, [el('thead', {}, [head]), el('tbody', {}, body)]);
}

export function traceSection(t: TracePanel | undefined): void {
  if (!t) return;
  heading('Traces');
  app.appendChild(el('p', { className: 'muted', text: t.traces + ' traces kept of ' + t.items + ' items. A link opens on the instance after a login; it holds no token.' }));
  if (t.slowest.length) app.appendChild(el('h3', { text: 'Slowest items' })), app.appendChild(table(t.slowest));
  if (t.failed.length) app.appendChild(el('h3', { text: 'Failed items' })), app.appendChild(table(t.failed));
  const f = t.fetched;
  if (!f) return;
  app.appendChild(el('h3', { text: 'Fetched traces: slowest spans' }));
  app.appendChild(el('p', { className: 'muted', text: f.saved + ' saved in ' + f.dir + (f.stopped ? '; stopped: ' + f.stopped : '') }));
  const rows = f.traces.map((x) =>
    el('tr', {}, [el('td', { text: x.itemKey }), el('td', { text: x.id }), el('td', { text: x.cut ? 'cut at the size cap' : x.slowest.map((s) => s.operation + ' ' + fmtMs(s.ms)).join(', ') })]),
  );
  app.appendChild(el('table', { className: 'traces' }, [el('thead', {}, [el('tr', {}, ['item', 'trace', 'slowest spans'].map((h) => el('th', { text: h })))]), el('tbody', {}, rows)]));
}
