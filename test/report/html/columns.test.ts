import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEARCH_COLUMNS, TURN_COLUMNS, columnIndex, rowOf } from '../../../src/report/html/columns.js';
import { writeReport } from '../../../src/report/report.js';
import { openStore } from '../../../src/store/store.js';
import { completed, question, recordRun, search, searchRecord, tempDir } from '../fixtures.js';

// The report page's rows are built from one list of columns, which its writer and its viewer both import.

describe('the report page\'s columns', () => {
  it('puts each cell in its column\'s place, found again by name', () => {
    const cells = Object.fromEntries(TURN_COLUMNS.map((c) => [c, `${c}!`])) as Record<(typeof TURN_COLUMNS)[number], string>;
    const row = rowOf(TURN_COLUMNS, cells);
    const at = columnIndex(TURN_COLUMNS);
    expect(row).toHaveLength(TURN_COLUMNS.length);
    for (const c of TURN_COLUMNS) expect(row[at[c]]).toBe(`${c}!`);
  });

  it('writes report.html\'s rows in the order of the list it embeds', async () => {
    const dir = tempDir('dsbench-columns-');
    try {
      const db = path.join(dir, 'results.db');
      const store = openStore(db);
      recordRun(store, [
        { item: question('q1'), turns: [completed({ serverMs: 4321, credits: 7, answer: 'In retry.ts.' })] },
        { item: search('s1'), search: searchRecord() },
      ]);
      store.close();
      const out = path.join(dir, 'out');
      await writeReport({ db, run: 'latest', out, formats: new Set(['html']) });
      const text = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
      const json = /<script id="dsbench-data" type="application\/json">([\s\S]*?)<\/script>/.exec(text)![1]!;
      const page = JSON.parse(json) as { turnColumns: string[]; searchColumns: string[]; turns: unknown[][]; searches: unknown[][] };
      expect(page.turnColumns).toEqual(TURN_COLUMNS);
      expect(page.searchColumns).toEqual(SEARCH_COLUMNS);
      const turn = columnIndex(TURN_COLUMNS);
      expect(page.turns[0]![turn.id]).toBe('q1');
      expect(page.turns[0]![turn.serverMs]).toBe(4321);
      expect(page.turns[0]![turn.credits]).toBe(7);
      expect(page.turns[0]![turn.answer]).toBe('In retry.ts.');
      expect(page.searches[0]![columnIndex(SEARCH_COLUMNS).id]).toBe('s1');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
