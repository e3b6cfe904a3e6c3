import { parentPort, workerData } from 'node:worker_threads';
import { reportData } from '../report/report.js';
import { findRun } from '../store/queries.js';
import { openStore } from '../store/store.js';
import { figuresHtml, reportPage } from './pages/report-figures.js';
import type { CountedReport, ReportRequest } from './report-counter.js';

// The worker that counts a run's report for the viewer (report-counter.ts starts it): a read-only connection
// of its own, the report's one streaming pass over the run, and only the pages' HTML sent back.

/** SQLite's page cache of this connection: the pass reads each page once, so a large cache only costs memory. */
const PAGE_CACHE_KIB = 2048;

const { db, runId } = workerData as ReportRequest;
const store = openStore(db, { readOnly: true, pageCacheKiB: PAGE_CACHE_KIB });
try {
  const run = findRun(store.db, runId);
  if (!run) throw new Error(`run ${runId} is no longer in ${db}`);
  const data = reportData(store.db, db, run, new Date());
  const page = reportPage(data);
  parentPort!.postMessage({ figures: figuresHtml(data).text, title: page.title, page: page.body.text } satisfies CountedReport);
} finally {
  store.close();
}
