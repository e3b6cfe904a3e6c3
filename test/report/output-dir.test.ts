import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/report/compare/compare.js';
import { writeHistory } from '../../src/report/history-report.js';
import { outputDir } from '../../src/report/open.js';
import { writeReport } from '../../src/report/report.js';
import { completed, question, recordRun, useTempStore, type TempStore } from './fixtures.js';

// Without --out, what a report writes goes beside the database it read, named after it when it is not the
// default one: `report --db other.db` never mixes its files with those of the default database's run 1.

describe('report outputs beside their database', () => {
  let t: TempStore;
  useTempStore((s) => (t = s));

  it('names folders after a database that is not the default one', () => {
    expect(outputDir('results/dsbench.db', 'report-1')).toBe(path.join('results', 'report-1'));
    expect(outputDir('/data/nightly.db', 'report-1')).toBe(path.join('/data', 'nightly-report-1'));
    expect(outputDir('other.sqlite', 'compare-1-vs-2')).toBe('other-compare-1-vs-2');
  });

  it('report, history and compare write next to --db', async () => {
    const one = [{ name: 'prod', url: 'https://sg.example.com', api: 'legacy' as const, emulated: false }];
    recordRun(t.store, [{ item: question('a'), turns: [completed()] }], { targets: one });
    recordRun(t.store, [{ item: question('a'), turns: [completed()] }], { targets: one });
    const report = await writeReport({ db: t.db, run: 'latest', formats: new Set(['csv']) });
    const history = await writeHistory({ db: t.db, limit: 5, formats: new Set(['csv']) });
    const compare = await compareRuns({ baseline: { db: t.db, run: 'latest~1' }, candidate: { db: t.db, run: 'latest' } });
    // The fixture's database is results.db in a fresh folder.
    expect(report.out).toBe(path.join(t.dir, 'results-report-2'));
    expect(history.out).toBe(path.join(t.dir, 'results-history-smoke'));
    expect(compare.out).toBe(path.join(t.dir, 'results-compare-1-vs-2-prod-vs-prod'));
    for (const dir of [report.out, history.out, compare.out]) expect(fs.readdirSync(dir).length).toBeGreaterThan(0);
  });

  it('a report killed mid-write left .partial files: the next report removes them and writes its files whole', async () => {
    recordRun(t.store, [{ item: question('a'), turns: [completed()] }]);
    const out = path.join(t.dir, 'killed');
    fs.mkdirSync(out);
    // What a kill during an earlier report left: a cut CSV beside its name, and a page of a format not asked now.
    fs.writeFileSync(path.join(out, 'questions.csv.partial'), 'target,item_id\nprod,');
    fs.writeFileSync(path.join(out, 'report.html.partial'), '<!doctype html><html><body');
    const report = await writeReport({ db: t.db, run: 'latest', out, formats: new Set(['csv', 'md']) });
    const files = fs.readdirSync(out).sort();
    expect(files.filter((f) => f.endsWith('.partial'))).toEqual([]);
    expect(files).toEqual(report.files.map((f) => path.basename(f)).sort());
  });

  it('compare and history into a folder a killed one left .partial files in: removed, files whole', async () => {
    recordRun(t.store, [{ item: question('a'), turns: [completed()] }]);
    recordRun(t.store, [{ item: question('a'), turns: [completed()] }]);
    for (const [name, write] of [
      ['compare', (out: string) => compareRuns({ baseline: { db: t.db, run: 'latest~1' }, candidate: { db: t.db, run: 'latest' }, out })],
      ['history', (out: string) => writeHistory({ db: t.db, limit: 5, formats: new Set(['csv']), out })],
    ] as const) {
      const out = path.join(t.dir, `killed-${name}`);
      fs.mkdirSync(out);
      // A page of a format not asked now: nothing of this writer would write over it.
      fs.writeFileSync(path.join(out, `${name}.html.partial`), '<!doctype html><html><body');
      await write(out);
      expect(fs.readdirSync(out).filter((f) => f.endsWith('.partial'))).toEqual([]);
    }
  });
});
