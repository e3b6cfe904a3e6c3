import type { TracedItemRow } from '../store/queries.js';
import type { Block } from './document.js';
import type { ReportData } from './report-result.js';
import { fmtInt, fmtSeconds } from './tables.js';

// The summary's traces (run --trace): the slowest items and the failed ones, each with the instance's trace
// link. A link needs a login to the instance to open; it holds no token.

const link = (r: TracedItemRow): string => r.traceUrl ?? (r.traceId ? `trace id ${r.traceId}` : 'no trace kept');

const table = (rows: readonly TracedItemRow[]): Block => ({
  kind: 'table',
  table: {
    headers: ['target', 'item', 'repeat', 'outcome', 'time', 'trace'],
    align: ['left', 'left', 'right', 'left', 'right', 'left'],
    rows: rows.map((r) => [r.target, r.suiteItemId, String(r.repeat), r.outcome ?? '', fmtSeconds(r.ms), link(r)]),
  },
});

/** The report's section: nothing for a run that kept no trace. */
export function traceBlocks(data: ReportData): Block[] {
  return traceOverviewBlocks(data.traces);
}

/** The slowest and the failed items with their trace links, as the report and `run --trace`'s summary show them. */
export function traceOverviewBlocks(t: ReportData['traces']): Block[] {
  if (!t) return [];
  const blocks: Block[] = [
    { kind: 'heading', level: 2, text: ['Traces'] },
    { kind: 'para', text: [`${fmtInt(t.traces)} traces kept of ${fmtInt(t.items)} items; a link opens on the instance after a login (it holds no token).`] },
  ];
  if (t.slowest.length > 0) blocks.push({ kind: 'heading', level: 3, text: ['Slowest items'] }, table(t.slowest));
  if (t.failed.length > 0) blocks.push({ kind: 'heading', level: 3, text: ['Failed items with a trace'] }, table(t.failed));
  if (t.fetched) {
    blocks.push({ kind: 'para', text: [`Traces fetched: ${fmtInt(t.fetched.saved)} saved in `, { code: t.fetched.dir }, t.fetched.stopped ? `; stopped: ${t.fetched.stopped}` : ''] });
  }
  return blocks;
}
