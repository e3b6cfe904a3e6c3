import type Database from 'better-sqlite3';
import { questionNights } from '../store/quality-queries.js';
import { QUARANTINE_TAG } from './compare/quarantine.js';

// Each question's outcome night by night, and which questions are flaky or changed. The rule
// (docs/statistics.md), over the items that did not end in an error (errors are counted apart, so that a
// random token-limit error does not make a stable question look flaky):
// - flaky: both a pass and a fail on one night's repeats, or its nights' outcomes flip more than once;
// - a step: every night passed up to one run and failed from it on (regressed), or the reverse (fixed). A
//   step is a change, not noise: quarantining it would hide a regression.

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
  /** Set when its nights went from all passing to all failing at `runId` (regressed), or the reverse (fixed). */
  step: { runId: number; direction: 'regressed' | 'fixed' } | null;
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
      row = { target: n.target, kind: n.kind, id: n.suiteItemId, cells: runs.map(() => null), flaky: false, step: null, quarantined: false };
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
    Object.assign(row, stability(row.cells.slice(since), runs.slice(since)));
  }
  return { runs: [...runs], rows: [...rows.values()].sort((a, b) => a.target.localeCompare(b.target) || a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id)) };
}

/** Flaky or a step, from the nights' outcomes (the rule above). */
function stability(cells: ReadonlyArray<GridCell | null>, runs: ReadonlyArray<{ id: number }>): Pick<GridRow, 'flaky' | 'step'> {
  // Each night the question was judged on: true when its plain repeats all passed, false when all failed.
  const nights: Array<{ runId: number; passed: boolean }> = [];
  for (const [i, c] of cells.entries()) {
    if (c === null) continue;
    const plainFails = Math.max(0, c.checked - c.passed - c.errored);
    if (c.passed > 0 && plainFails > 0) return { flaky: true, step: null };
    if (c.passed > 0 || plainFails > 0) nights.push({ runId: runs[i]!.id, passed: c.passed > 0 });
  }
  const flips = nights.flatMap((n, i) => (i > 0 && n.passed !== nights[i - 1]!.passed ? [n] : []));
  if (flips.length > 1) return { flaky: true, step: null };
  if (flips.length === 0) return { flaky: false, step: null };
  return { flaky: false, step: { runId: flips[0]!.runId, direction: flips[0]!.passed ? 'fixed' : 'regressed' } };
}

/** The row's marks: "flaky", "regressed at run 12", "fixed at run 12", "quarantined". */
export function gridMarks(row: GridRow): string {
  const step = row.step ? `${row.step.direction} at run ${row.step.runId}` : '';
  return [row.flaky ? 'flaky' : '', step, row.quarantined ? 'quarantined' : ''].filter(Boolean).join(', ');
}

/** "2/2", "1/2", "0/2 (1 error)", "edited: 2/2", or "–" when the run did not ask it or it has no checks. */
export function cellText(c: GridCell | null): string {
  if (c === null) return '–';
  const edited = c.edited ? 'edited: ' : '';
  if (c.checked === 0) return `${edited}–`;
  return `${edited}${c.passed}/${c.checked}${c.errored > 0 ? ` (${c.errored} error${c.errored === 1 ? '' : 's'})` : ''}`;
}
