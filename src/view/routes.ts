import { reportData } from '../report/report.js';
import { type RunRecord, findRun } from '../store/queries.js';
import type { Store } from '../store/store.js';
import type { html } from './html.js';
import { comparePage } from './pages/compare-page.js';
import { GeneratedPages } from './pages/generated.js';
import { HISTORY_NIGHTS, historyPage } from './pages/history-page.js';
import { itemPage } from './pages/item-page.js';
import { figuresHtml, reportPage, runPage } from './pages/run-page.js';
import { runsPage } from './pages/runs-page.js';
import { RunCache } from './run-cache.js';

// The viewer's pages by address: which reader makes which page, and what is kept between requests.

export type Page = { title: string; body: ReturnType<typeof html>; live?: number | undefined; crumbs: Array<[string, string?]> };

export class PageNotFound extends Error {}

export class ViewPages {
  private readonly made: GeneratedPages;
  // A run's report reads every turn, its sort keys too: kept while the run is unchanged.
  private readonly runs: RunCache;

  constructor(
    private readonly store: Store,
    private readonly dbPath: string,
  ) {
    this.made = new GeneratedPages(dbPath);
    this.runs = new RunCache(store.db);
  }

  /** The database changed: what was made from it is stale. */
  clear(): void {
    this.made.clear();
  }

  close(): void {
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

  private runRoute(id: number, itemKey: string | undefined, part: string | undefined, params: Record<string, string>): Page {
    const db = this.store.db;
    const run = findRun(db, id);
    if (!run) throw new PageNotFound(`There is no run ${id} in ${this.dbPath}.`);
    const live = run.status === 'running' ? run.id : undefined;
    const runCrumb: [string, string] = [`run ${run.id}`, `/runs/${run.id}`];
    if (part === 'figures') return { title: `Figures of run ${run.id}`, body: this.report(run).figures, live, crumbs: [['runs', '/'], runCrumb, ['figures']] };
    if (part !== undefined) return { ...this.report(run).page, live, crumbs: [['runs', '/'], runCrumb, ['report']] };
    if (itemKey === undefined) return { ...runPage(db, run, params, this.runs), live, crumbs: [['runs', '/'], [`run ${run.id}`]] };
    const key = decodeURIComponent(itemKey);
    const item = itemPage(db, run, key);
    if (!item) throw new PageNotFound(`Run ${run.id} has no item ${key}.`);
    return { ...item, live, crumbs: [['runs', '/'], runCrumb, [key]] };
  }

  /** The run's report data, read once for its figures and its report page alike. */
  private report(run: RunRecord): { figures: ReturnType<typeof html>; page: ReturnType<typeof reportPage> } {
    return this.runs.get(run.id, 'report', () => {
      const data = reportData(this.store.db, this.dbPath, run, new Date());
      return { figures: figuresHtml(data), page: reportPage(data) };
    });
  }
}

function historyLimit(text: string | undefined): number {
  const n = Number(text);
  return Number.isInteger(n) && n > 0 && n <= 1000 ? n : HISTORY_NIGHTS;
}
