import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../src/store/migrations.js';
import { runPassStatement } from '../../src/store/series-queries.js';
import { openStore } from '../../src/store/store.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-series-queries-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the history's pass over a run", () => {
  it("reads whether each item's checks all passed from an index alone, once a version 16 database is upgraded", () => {
    const file = path.join(dir, 'v16.db');
    const raw = new Database(file);
    migrate(raw, MIGRATIONS.filter((m) => m.version <= 16));
    raw.close();
    const store = openStore(file);
    try {
      const plan = (store.db.prepare(`EXPLAIN QUERY PLAN ${runPassStatement(store.db).source}`).all(1) as Array<{ detail: string }>).map((r) => r.detail);
      expect(plan).toContain('SEARCH e USING COVERING INDEX expectations_outcome (run_id=? AND item_key=?)');
      // Items in plan order from their index, not sorted.
      expect(plan.join('\n')).not.toContain('TEMP B-TREE');
    } finally {
      store.close();
    }
  });
});
