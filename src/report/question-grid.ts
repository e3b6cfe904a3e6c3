import { QUARANTINE_TAG } from './compare/quarantine.js';
import { type NightReader, type RunSink, UNFINISHED, unexpectedError } from './history-pass.js';

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

/** One question's finished items of one night, summed. */
interface NightCell {
  checked: number;
  passed: number;
  errored: number;
  /** The greatest of its items' tag lists and definition hashes (as SQL's max() orders text). */
  tagsJson: string;
  definitionHash: string | null;
}

interface GridQuestion {
  target: string;
  kind: GridRow['kind'];
  id: string;
  nights: Array<NightCell | undefined>;
}

/** The grid, made from the history's pass over its runs (`sink` for each night), then `grid`. */
export class QuestionGridReader implements NightReader {
  private readonly questions = new Map<string, GridQuestion>();
  private last: GridQuestion | undefined;

  sink(night: number): RunSink {
    return {
      item: ({ traits: item }) => {
        if (UNFINISHED.has(item.status)) return;
        // An item's repeats come one after another: most items are the question of the one before.
        let q = this.last;
        if (q?.id !== item.suiteItemId || q.target !== item.target || q.kind !== item.kind) {
          const key = `${item.target}\u0000${item.kind}\u0000${item.suiteItemId}`;
          q = this.questions.get(key);
          if (!q) this.questions.set(key, (q = { target: item.target, kind: item.kind, id: item.suiteItemId, nights: [] }));
          this.last = q;
        }
        const cell = (q.nights[night] ??= { checked: 0, passed: 0, errored: 0, tagsJson: item.tagsJson, definitionHash: null });
        if (item.expectPassed !== null) cell.checked++;
        cell.passed += item.expectPassed ?? 0;
        if (unexpectedError(item)) cell.errored++;
        cell.tagsJson = maxText(cell.tagsJson, item.tagsJson)!;
        cell.definitionHash = maxText(cell.definitionHash, item.definitionHash);
      },
    };
  }

  /** The grid over `runs`, the runs the pass read, in its order. */
  grid(runs: ReadonlyArray<{ id: number; startedAt: string }>): QuestionGrid {
    // Edits are looked for night after night in the order the runs started.
    const chrono = runs.map((_, i) => i).sort((a, b) => cmpText(runs[a]!.startedAt, runs[b]!.startedAt) || runs[a]!.id - runs[b]!.id);
    const rows: GridRow[] = [];
    for (const q of this.questions.values()) {
      const row: GridRow = { target: q.target, kind: q.kind, id: q.id, cells: runs.map(() => null), flaky: false, step: null, quarantined: false };
      let lastHash: string | undefined;
      for (const i of chrono) {
        const n = q.nights[i];
        if (!n) continue;
        // A night without a hash (recorded before hashes were) breaks nothing.
        const edited = lastHash !== undefined && n.definitionHash !== null && lastHash !== n.definitionHash;
        if (n.definitionHash !== null) lastHash = n.definitionHash;
        row.cells[i] = { checked: n.checked, passed: n.passed, errored: n.errored, edited };
        if ((JSON.parse(n.tagsJson) as string[]).includes(QUARANTINE_TAG)) row.quarantined = true;
      }
      // An edit starts the question's series again: only the nights since the last one count.
      const since = Math.max(0, row.cells.findLastIndex((c) => c?.edited === true));
      rows.push(Object.assign(row, stability(row.cells.slice(since), runs.slice(since))));
    }
    return { runs: [...runs], rows: rows.sort((a, b) => a.target.localeCompare(b.target) || a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id)) };
  }
}

/** Text compared as SQLite compares it (its UTF-8 bytes), which is not JavaScript's order past the BMP. */
function cmpText(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** The greater of two texts as SQL's max() picks it: a null is no value. */
function maxText(a: string | null, b: string | null): string | null {
  if (a === null || b === null) return a ?? b;
  return cmpText(a, b) >= 0 ? a : b;
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
