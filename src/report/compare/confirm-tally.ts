import type { ClusterCounts } from '../../stats/sequential.js';
import { type CompareRow, QUESTION_FAILED, SEARCH_FAILED } from './pairs.js';

// What a confirmation (`dsbench confirm`) reads of a comparison: per question (or search) of a target, the
// outcome of each of its items on each side, from the comparison's rows (the first look) and from the
// re-asked items of the confirmation run (candidate rows only, kept apart from the run's own repeats). From
// these: which questions drive a flagged rate gate, and each question's counts for the second look.

export type RateGate = 'new-errors' | 'pass-rate' | 'pass-k';
export const RATE_GATES: readonly RateGate[] = ['new-errors', 'pass-rate', 'pass-k'];

interface ItemSide {
  verdict: 'pass' | 'fail' | 'none' | null;
  errored: boolean;
}

interface Cluster {
  kind: 'question' | 'search';
  target: string;
  itemId: string;
  /** By `run/repeat`: a pooled baseline (window:K) has each repeat once per run it pools. */
  baseline: Map<string, ItemSide>;
  candidate: Map<string, ItemSide>;
}

/** A question (or search) of a target, and how strongly it drives the flagged gates (the drop of its rate). */
export interface Driver {
  kind: 'question' | 'search';
  target: string;
  itemId: string;
  badness: number;
}

const failedState = (kind: 'question' | 'search', state: string | null): boolean => state !== null && (kind === 'question' ? QUESTION_FAILED : SEARCH_FAILED).has(state);
// An error the item's checks expected is an outcome like another: it passes (as the comparison counts it).
const unexpected = (s: ItemSide): boolean => s.errored && s.verdict !== 'pass';
const checked = (s: ItemSide): boolean => s.verdict === 'pass' || s.verdict === 'fail';

export class ConfirmTally {
  private readonly clusters = new Map<string, Cluster>();

  /**
   * A row of the first look's comparison. Every item of a question counts on its side, paired or not: the
   * tests here compare a question's counts, not pairs, so a baseline asked with more repeats (a release run
   * blessed once) strengthens them; a question asked on one side only drops out. A pooled baseline's runs
   * each bring their own items; the candidate's item, paired once per pooled run, counts once.
   */
  addCompared(row: CompareRow): void {
    if (row.quarantined || row.edited) return;
    const c = this.cluster(row.kind, row.targetCandidate ?? row.targetBaseline ?? '', row.itemId);
    if (row.pairing !== 'candidate_only') this.addSide(c.baseline, `${row.baselineRun ?? ''}/${row.repeat}`, row, row.itemExpectBaseline, row.stateBaseline);
    if (row.pairing !== 'baseline_only') this.addSide(c.candidate, `run/${row.repeat}`, row, row.itemExpectCandidate, row.stateCandidate);
  }

  /** A row of a re-asked item (the confirmation run's, as a candidate-only row). */
  addReasked(row: CompareRow): void {
    if (row.quarantined) return;
    const c = this.clusters.get(key(row.kind, row.targetCandidate ?? '', row.itemId));
    // A question the first look did not pair cannot move a paired test.
    if (c) this.addSide(c.candidate, `confirm/${row.repeat}`, row, row.itemExpectCandidate, row.stateCandidate);
  }

  /** Per question, trials and successes of a gate's rate on each side (errors for new-errors, passes otherwise). */
  counts(gate: RateGate): ClusterCounts[] {
    return [...this.clusters.values()].map((c) => countsOf(gate, c));
  }

  /** The questions whose rate moved the bad way for any of `gates`, worst first. */
  drivers(gates: readonly RateGate[]): Driver[] {
    const out: Driver[] = [];
    for (const c of this.clusters.values()) {
      let badness = 0;
      for (const gate of gates) {
        const { baselineTrials: bt, baselineSuccesses: bs, candidateTrials: ct, candidateSuccesses: cs } = countsOf(gate, c);
        if (bt === 0 || ct === 0) continue;
        const d = cs / ct - bs / bt;
        badness = Math.max(badness, gate === 'new-errors' ? d : -d);
      }
      if (badness > 0) out.push({ kind: c.kind, target: c.target, itemId: c.itemId, badness });
    }
    return out.sort((a, b) => b.badness - a.badness || a.itemId.localeCompare(b.itemId));
  }

  private cluster(kind: 'question' | 'search', target: string, itemId: string): Cluster {
    const k = key(kind, target, itemId);
    let c = this.clusters.get(k);
    if (!c) this.clusters.set(k, (c = { kind, target, itemId, baseline: new Map(), candidate: new Map() }));
    return c;
  }

  private addSide<K>(items: Map<K, ItemSide>, item: K, row: CompareRow, verdict: CompareRow['itemExpectBaseline'], state: string | null): void {
    let s = items.get(item);
    if (!s) items.set(item, (s = { verdict: null, errored: false }));
    if ((row.turn === null || row.turn === 0) && verdict !== null) s.verdict = verdict;
    if (failedState(row.kind, state)) s.errored = true;
  }
}

const key = (kind: string, target: string, itemId: string): string => `${kind}\u0000${target}\u0000${itemId}`;

function countsOf(gate: RateGate, c: Cluster): ClusterCounts {
  const [baselineTrials, baselineSuccesses] = rate(gate, c.baseline.values());
  const [candidateTrials, candidateSuccesses] = rate(gate, c.candidate.values());
  return { baselineTrials, baselineSuccesses, candidateTrials, candidateSuccesses };
}

/** [trials, successes]: every item and its unexpected errors (new-errors), or items checked without such an error and their passes. */
function rate(gate: RateGate, items: Iterable<ItemSide>): [number, number] {
  let trials = 0;
  let successes = 0;
  for (const s of items) {
    if (gate === 'new-errors') {
      trials++;
      if (unexpected(s)) successes++;
    } else if (checked(s) && !unexpected(s)) {
      trials++;
      if (s.verdict === 'pass') successes++;
    }
  }
  return [trials, successes];
}

/**
 * How a budget of items is spent on the drivers: as many drivers as it holds at one repeat each, the worst
 * first, each asked an equal share of it, and what is left of it over the shares one more time by the worst
 * of them, so the whole budget is asked.
 */
export function allocate(drivers: readonly Driver[], budget: number): Array<{ driver: Driver; repeats: number }> {
  const items = Math.max(0, Math.floor(budget));
  const count = Math.min(drivers.length, items);
  if (count === 0) return [];
  const each = Math.floor(items / count);
  const left = items - each * count;
  return drivers.slice(0, count).map((driver, i) => ({ driver, repeats: each + (i < left ? 1 : 0) }));
}
