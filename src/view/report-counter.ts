import { createRequire } from 'node:module';
import path, { extname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

// A run's report (its figures and its report page) is one pass over every turn: 6 s at 100,000 items on an
// idle machine. It is counted in a worker thread (report-worker.ts) so the server's thread keeps answering
// other pages meanwhile; one count at a time, with a bounded heap, so the viewer's memory stays bounded too.

export interface ReportRequest {
  db: string;
  runId: number;
}

/** What the worker sends back: the pages' HTML, made there from the report's data. */
export interface CountedReport {
  figures: string;
  title: string;
  page: string;
}

/** The cap on the worker's V8 heap: a count of 100,000 items uses about 45 MB of memory in all (bench/view/RESULTS.md); the cap leaves room for runs several times larger and stops a runaway one. */
export const WORKER_HEAP_MB = 256;

const here = fileURLToPath(import.meta.url);
// Beside this module: report-worker.ts from the sources, report-worker.js when built (scripts/build.ts).
const WORKER_FILE = new URL(`./report-worker${extname(here)}`, import.meta.url);

/** The worker's entry: the module itself, or from the sources (tests, tsx) a loader that reads TypeScript first. */
function workerEntry(): { entry: URL | string; eval: boolean } {
  if (extname(here) !== '.ts') return { entry: WORKER_FILE, eval: false };
  const tsx = pathToFileURL(path.join(path.dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href;
  return { entry: `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(WORKER_FILE.href)}); });`, eval: true };
}

export class ReportCounter {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly workers = new Set<Worker>();
  private closed = false;

  constructor(private readonly db: string) {}

  /** The run's report counted in a worker, after the counts asked for before it. */
  count(runId: number): Promise<CountedReport> {
    const counted = this.queue.then(() => this.countNow(runId));
    this.queue = counted.catch(() => undefined);
    return counted;
  }

  /** Stops any count under way; counts asked for later fail. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.workers].map((w) => w.terminate()));
  }

  private countNow(runId: number): Promise<CountedReport> {
    if (this.closed) return Promise.reject(new Error('the viewer is stopping'));
    return new Promise((resolve, reject) => {
      const { entry, eval: isCode } = workerEntry();
      const worker = new Worker(entry, {
        eval: isCode,
        workerData: { db: this.db, runId } satisfies ReportRequest,
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 8 },
      });
      this.workers.add(worker);
      let result: CountedReport | undefined;
      worker.on('message', (message: CountedReport) => (result = message));
      worker.on('error', (error: Error & { code?: string }) => {
        const why = error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `it needed more than the ${WORKER_HEAP_MB} MB of memory given to it` : error.message;
        reject(new Error(`counting the report of run ${runId} in ${this.db} failed: ${why}`));
      });
      worker.on('exit', (code) => {
        this.workers.delete(worker);
        if (result) resolve(result);
        else reject(new Error(`counting the report of run ${runId} in ${this.db} stopped (exit code ${code}) before it finished`));
      });
    });
  }
}
