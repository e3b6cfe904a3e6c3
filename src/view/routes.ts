import { type RunRecord, findRun } from '../store/queries.js';
import type { Store } from '../store/store.js';
import { type SafeHtml, type html, trusted } from './html.js';
import { comparePage } from './pages/compare-page.js';
import { GeneratedPages } from './pages/generated.js';
import { HISTORY_NIGHTS, historyPage } from './pages/history-page.js';
import { itemPage } from './pages/item-page.js';
import { runPage } from './pages/run-page.js';
import { runsPage } from './pages/runs-page.js';
import { type CountedReport, ReportCounter } from './report-counter.js';
import { RunCache } from './run-cache.js';

// The viewer's pages by address: which reader makes which page, and what is kept between requests.

export type Page = { title: string; body: ReturnType<typeof html>; live?: number | undefined; crumbs: Array<[string, string?]> };

export class PageNotFound extends Error {}

export class ViewPages {
  private readonly made: GeneratedPages;
  // A run's report reads every turn, its sort keys too: kept while the run is unchanged.
  private readonly runs: RunCache;
  private readonly counter: ReportCounter;

  constructor(
    private readonly store: Store,
    private readonly dbPath: string,
  ) {
    this.made = new GeneratedPages(dbPath);
    this.runs = new RunCache(store.db);
    this.counter = new ReportCounter(dbPath);
  }

  /** The database changed: what was made from it is stale. */
  clear(): void {
    this.made.clear();
  }

  async close(): Promise<void> {
    await this.counter.close();
    this.made.close();
  }

  async route(path: string, url: URL): Promise<Page> {
    const db = this.store.db;
    const params = Object.fromEntries(url.searchParams);
    if (path === '/') return { ...runsPage(db, params), crumbs: [['runs']] };
    const runMatch = /^\/runs\/(\d+)(?:\/items\/([^/]+)|\/(report|figures))?\/?$/.exec(path);
    if (runMatch) return this.runRoute(Number(runMatch[1]), runMatch[2], runMatch[3], params);
    if (path === '/compare') {
      const { baseline, candidate } = params;
      const made = baseline && candidate ? await this.made.compare(baseline, candidate) : undefined;
      return { ...comparePage(db, baseline, candidate, made), crumbs: [['runs', '/'], ['compare']] };
    }
    if (path === '/history') {
      const suite = params['suite'] || findRun(db, 'latest')?.suiteName;
      if (!suite) throw new PageNotFound(`There are no runs in ${this.dbPath} yet, so no history.`);
      const limit = historyLimit(params['n']);
      return { ...historyPage(suite, limit, await this.made.history(suite, limit)), crumbs: [['runs', '/'], [`history of ${suite}`]] };
    }
    throw new PageNotFound(`Nothing is at ${path}.`);
  }

  /** The text of a static page made by `compare` or `report --history` (`/compare/page`, `/history/page`). */
  async generated(path: string, url: URL): Promise<string> {
    const params = Object.fromEntries(url.searchParams);
    const made =
      path === '/compare/page'
        ? await this.made.compare(params['baseline'] ?? '', params['candidate'] ?? '')
        : await this.made.history(params['suite'] || findRun(this.store.db, 'latest')?.suiteName || '', historyLimit(params['n']));
    const text = GeneratedPages.read(made);
    if (text === undefined) throw new PageNotFound('That page was not made.');
    return text;
  }

  private async runRoute(id: number, itemKey: string | undefined, part: string | undefined, params: Record<string, string>): Promise<Page> {
    const db = this.store.db;
    const run = findRun(db, id);
    if (!run) throw new PageNotFound(`There is no run ${id} in ${this.dbPath}.`);
    const live = run.status === 'running' ? run.id : undefined;
    const runCrumb: [string, string] = [`run ${run.id}`, `/runs/${run.id}`];
    if (part === 'figures') return { title: `Figures of run ${run.id}`, body: (await this.report(run)).figures, live, crumbs: [['runs', '/'], runCrumb, ['figures']] };
    if (part !== undefined) return { ...(await this.report(run)).page, live, crumbs: [['runs', '/'], runCrumb, ['report']] };
    if (itemKey === undefined) return { ...runPage(db, run, params, this.runs), live, crumbs: [['runs', '/'], [`run ${run.id}`]] };
    const key = decodeURIComponent(itemKey);
    const item = itemPage(db, run, key);
    if (!item) throw new PageNotFound(`Run ${run.id} has no item ${key}.`);
    return { ...item, live, crumbs: [['runs', '/'], runCrumb, [key]] };
  }

  /** The run's report, counted in a worker once for its figures and its report page alike; a failed count is not kept. */
  private async report(run: RunRecord): Promise<{ figures: SafeHtml; page: { title: string; body: SafeHtml } }> {
    const counting = this.runs.get(run.id, 'report', () => this.counter.count(run.id));
    const counted: CountedReport = await counting.catch((error: unknown) => {
      this.runs.forget(run.id, 'report', counting);
      throw error;
    });
    return { figures: trusted(counted.figures), page: { title: counted.title, body: trusted(counted.page) } };
  }
}

function historyLimit(text: string | undefined): number {
  const n = Number(text);
  return Number.isInteger(n) && n > 0 && n <= 1000 ? n : HISTORY_NIGHTS;
}
