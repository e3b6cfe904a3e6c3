import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compareRuns } from '../../report/compare/compare.js';
import { writeHistory } from '../../report/history-report.js';

// Compare and history pages are made by the same code as `dsbench compare` and `report --history`, into a
// private temporary folder (never beside the database), and kept while the database has not changed.

export interface Generated {
  markdown: string;
  /** The self-contained HTML page those commands write. */
  htmlFile: string | undefined;
}

const KEPT = 16;

export class GeneratedPages {
  private readonly folder = mkdtempSync(path.join(os.tmpdir(), 'dsbench-view-'));
  private readonly cache = new Map<string, Generated>();
  private made = 0;

  constructor(private readonly db: string) {}

  /** Forgets every page made (the database changed). */
  clear(): void {
    this.cache.clear();
  }

  async compare(baseline: string, candidate: string): Promise<Generated> {
    return this.keep(`compare\u0000${baseline}\u0000${candidate}`, async (out) => {
      const result = await compareRuns({ baseline: { db: this.db, run: baseline }, candidate: { db: this.db, run: candidate }, out, html: true });
      return { markdown: result.markdown, htmlFile: path.join(out, 'compare.html') };
    });
  }

  async history(suite: string, limit: number): Promise<Generated> {
    return this.keep(`history\u0000${suite}\u0000${limit}`, async (out) => {
      const result = await writeHistory({ db: this.db, suite, limit, out, formats: new Set(['md', 'html']) });
      return { markdown: result.markdown, htmlFile: result.files.find((f) => f.endsWith('.html')) };
    });
  }

  /** The page's HTML text. */
  static read(generated: Generated): string | undefined {
    return generated.htmlFile === undefined ? undefined : readFileSync(generated.htmlFile, 'utf8');
  }

  close(): void {
    rmSync(this.folder, { recursive: true, force: true });
  }

  private async keep(key: string, make: (out: string) => Promise<Generated>): Promise<Generated> {
    const found = this.cache.get(key);
    if (found) return found;
    const out = path.join(this.folder, String(this.made++));
    const generated = await make(out);
    if (this.cache.size >= KEPT) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
    }
    this.cache.set(key, generated);
    return generated;
  }
}
