import type { ExpectationRecord } from '../store/queries.js';

// An item's expectations are recorded per item; each may name the turn it checked. A turn's verdict
// covers the checks on that turn, plus the item-level checks (no turn) on the item's last turn.

export type Verdict = 'pass' | 'fail' | 'none';

export function verdictOf(checks: readonly ExpectationRecord[]): Verdict {
  if (checks.length === 0) return 'none';
  return checks.every((c) => c.passed) ? 'pass' : 'fail';
}

/** The checks that belong to one turn. */
export function checksOfTurn(checks: readonly ExpectationRecord[], turn: number, lastTurn: number): ExpectationRecord[] {
  return checks.filter((c) => (c.turn === null ? turn === lastTurn : c.turn === turn));
}

/** `name: pass|fail: reason`, one check a line. */
export function reasons(checks: readonly ExpectationRecord[]): string {
  return checks.map((c) => `${c.name}: ${c.passed ? 'pass' : 'fail'}: ${c.reason}`).join('\n');
}
