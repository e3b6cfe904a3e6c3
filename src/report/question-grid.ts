import type Database from 'better-sqlite3';
import { questionNights } from '../store/quality-queries.js';
import { QUARANTINE_TAG } from './compare/quarantine.js';

// Each question's outcome night by night, and which questions are flaky. The rule (docs/statistics.md):
// a question is flaky when, among its items that did not end in an error, both a pass and a fail occur in
// the runs shown (on one night's repeats or across nights). Errors are counted apart, so that a random
// token-limit error does not make a stable question look flaky.

export interface GridCell {
  /** Items with checks, those that passed, and those that ended in an error. */
  checked: number;
  passed: number;
  errored: number;
  /** What defines the question changed since the night before it was last asked: its series starts again here. */
  edited: boolean;
}

export interface GridRow {
  target: string;
  kind: 'question' | 'search';
  id: string;
  /** One per run of the grid, oldest first; null when the run did not ask it. */
  cells: Array<GridCell | null>;
  flaky: boolean;
  quarantined: boolean;
}

export interface QuestionGrid {
  runs: Array<{ id: number; startedAt: string }>;
  rows: GridRow[];
}

export function questionGrid(db: Database.Database, runs: ReadonlyArray<{ id: number; startedAt: string }>): QuestionGrid {
  const index = new Map(runs.map((r, i) => [r.id, i]));
  const rows = new Map<string, GridRow>();
  const lastHash = new Map<string, string>();
  for (const n of questionNights(db, runs.map((r) => r.id))) {
    const key = `${n.target}\u0000${n.kind}\u0000${n.suiteItemId}`;
    let row = rows.get(key);
    if (!row) {
      row = { target: n.target, kind: n.kind, id: n.suiteItemId, cells: runs.map(() => null), flaky: false, quarantined: false };
      rows.set(key, row);
    }
    // Nights come oldest first; a night without a hash (recorded before hashes were) breaks nothing.
    const before = lastHash.get(key);
    if (n.definitionHash !== null) lastHash.set(key, n.definitionHash);
    const edited = before !== undefined && n.definitionHash !== null && before !== n.definitionHash;
    row.cells[index.get(n.runId)!] = { checked: n.checked, passed: n.passed, errored: n.errored, edited };
    if ((JSON.parse(n.tagsJson) as string[]).includes(QUARANTINE_TAG)) row.quarantined = true;
  }
  for (const row of rows.values()) {
    // An edit starts the question's series again: only the nights since the last one count.
    const since = Math.max(0, row.cells.findLastIndex((c) => c?.edited === true));
    const cells = row.cells.slice(since).filter((c): c is GridCell => c !== null);
    const passes = cells.reduce((s, c) => s + c.passed, 0);
    const plainFails = cells.reduce((s, c) => s + Math.max(0, c.checked - c.passed - c.errored), 0);
    row.flaky = passes > 0 && plainFails > 0;
  }
  return { runs: [...runs], rows: [...rows.values()].sort((a, b) => a.target.localeCompare(b.target) || a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id)) };
}

/** "2/2", "1/2", "0/2 (1 error)", "edited: 2/2", or "–" when the run did not ask it or it has no checks. */
export function cellText(c: GridCell | null): string {
  if (c === null) return '–';
  const edited = c.edited ? 'edited: ' : '';
  if (c.checked === 0) return `${edited}–`;
  return `${edited}${c.passed}/${c.checked}${c.errored > 0 ? ` (${c.errored} error${c.errored === 1 ? '' : 's'})` : ''}`;
}
