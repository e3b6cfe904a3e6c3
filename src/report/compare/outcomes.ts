import type { BootstrapOptions } from '../../stats/bootstrap.js';
import type { CompareRow } from './pairs.js';
import { QUESTION_FAILED, SEARCH_FAILED } from './pairs.js';
import { truncationOf } from '../../model/truncation.js';
import { type RateChange, pairedRateChange } from '../../stats/cluster-rate.js';
import { defaultK, passHatK } from '../../stats/pass-k.js';
import { signFlipTest, type SignFlipResult } from '../../stats/sign-flip.js';

// Outcomes of the paired items (a question with one repeat and its turns, or a search), gathered per
// cluster (a question or search id with all its repeats) as compare.csv streams in key order, so that
// rates are compared with tests that keep a question's repeats together:
// - error rate: items that ended in an error their checks did not expect, on either side;
// - pass rate: items with checks that ended without such an error on both sides (a failure that is an
//   error counts in the error rate, not twice);
// - pass^k: per question, the chance that k repeats all pass (errors fail), k the fewest repeats;
// - judge score and citation validity: turns graded on both sides, citations checked on both sides.
// Items tagged `quarantine` are kept apart: shown, never gated.

interface Side {
  verdict: 'pass' | 'fail' | 'none' | null;
  errored: boolean;
  /** A turn ended at the output limit, with some answer text or with none. */
  truncated: boolean;
  truncatedNoAnswer: boolean;
}

const newSide = (): Side => ({ verdict: null, errored: false, truncated: false, truncatedNoAnswer: false });

interface ItemState {
  cluster: string;
  b: Side;
  c: Side;
  paired: boolean;
  quarantined: boolean;
  /** Judge scores and citation counts of turns that have them on both sides. */
  scoreB: number;
  scoreC: number;
  scored: number;
  validB: number;
  checkedB: number;
  validC: number;
  checkedC: number;
}

class ClusterTally {
  errorTrials = 0;
  errorsB = 0;
  errorsC = 0;
  passTrials = 0;
  passB = 0;
  passC = 0;
  passChanged = 0;
  /** Repeats with checks and passes per side (errors count as failures), for pass^k. */
  repeatsB = 0;
  passedB = 0;
  repeatsC = 0;
  passedC = 0;
  scored = 0;
  scoreB = 0;
  scoreC = 0;
  checkedB = 0;
  validB = 0;
  checkedC = 0;
  validC = 0;
  truncB = 0;
  truncC = 0;
  noAnswerB = 0;
  noAnswerC = 0;
}

export interface PassHatKChange {
  k: number;
  /** Questions with at least k repeats with checks on both sides. */
  questions: number;
  baseline: number | null;
  candidate: number | null;
  change: number | null;
  test: SignFlipResult;
}

export interface OutcomeSummary {
  errorRate: RateChange;
  passRate: RateChange;
  /** Items with a turn stopped by the output limit after some answer text (`truncated`), over the error rate's items. */
  truncatedRate: RateChange;
  /** Items with a turn stopped by the output limit before any answer text (`truncated-no-answer`). */
  truncatedNoAnswerRate: RateChange;
  passHatK: PassHatKChange;
  /** Mean judge score over turns graded on both sides (a rate whose successes are the scores). */
  judgeScore: RateChange;
  /** Per question, the share of valid citations on each side, averaged over questions checked on both. */
  citationValidity: RateChange;
  /** Clusters tagged quarantine, and their items: left out of every figure above. */
  quarantined: { clusters: number; items: number; ids: string[] };
}

function markTruncation(side: Side, errorCode: string | null): void {
  const name = truncationOf(errorCode);
  if (name === 'truncated') side.truncated = true;
  else if (name === 'truncated-no-answer') side.truncatedNoAnswer = true;
}

const failedState = (row: CompareRow, state: string | null): boolean =>
  state !== null && (row.kind === 'question' ? QUESTION_FAILED : SEARCH_FAILED).has(state);

export class OutcomeTally {
  private readonly clusters = new Map<string, ClusterTally>();
  private item: ItemState | undefined;
  private itemKey = '';
  private readonly quarantinedIds = new Set<string>();
  private quarantinedItems = 0;

  add(row: CompareRow): void {
    const cluster = `${row.kind}\u0000${row.targetBaseline ?? row.targetCandidate ?? ''}\u0000${row.itemId}`;
    // A pooled baseline pairs an item once per pooled run: each pairing is an item of its own.
    const key = `${cluster}\u0000${row.repeat}\u0000${row.baselineRun ?? ''}`;
    if (key !== this.itemKey) {
      this.flush();
      this.itemKey = key;
      this.item = {
        cluster, paired: false, quarantined: row.quarantined,
        b: newSide(), c: newSide(),
        scoreB: 0, scoreC: 0, scored: 0, validB: 0, checkedB: 0, validC: 0, checkedC: 0,
      };
    }
    const item = this.item!;
    if (row.turn === null || row.turn === 0) {
      item.paired = row.pairing === 'paired';
      if (row.itemExpectBaseline !== null) item.b.verdict = row.itemExpectBaseline;
      if (row.itemExpectCandidate !== null) item.c.verdict = row.itemExpectCandidate;
    }
    if (failedState(row, row.stateBaseline)) item.b.errored = true;
    if (failedState(row, row.stateCandidate)) item.c.errored = true;
    markTruncation(item.b, row.errorCodeBaseline);
    markTruncation(item.c, row.errorCodeCandidate);
    if (row.pairing === 'paired') {
      if (row.judgeScoreBaseline !== null && row.judgeScoreCandidate !== null) {
        item.scored++;
        item.scoreB += row.judgeScoreBaseline;
        item.scoreC += row.judgeScoreCandidate;
      }
      if (row.citationsCheckedBaseline > 0 && row.citationsCheckedCandidate > 0) {
        item.validB += row.citationsValidBaseline;
        item.checkedB += row.citationsCheckedBaseline;
        item.validC += row.citationsValidCandidate;
        item.checkedC += row.citationsCheckedCandidate;
      }
    }
  }

  private flush(): void {
    const item = this.item;
    this.item = undefined;
    if (!item || !item.paired) return;
    if (item.quarantined) {
      this.quarantinedIds.add(item.cluster.split('\u0000').slice(1).filter(Boolean).join('/'));
      this.quarantinedItems++;
      return;
    }
    let t = this.clusters.get(item.cluster);
    if (!t) this.clusters.set(item.cluster, (t = new ClusterTally()));
    // An error the item's checks expected is an outcome like another: it passes.
    const unexpected = (s: Side): boolean => s.errored && s.verdict !== 'pass';
    const eb = unexpected(item.b);
    const ec = unexpected(item.c);
    t.errorTrials++;
    if (eb) t.errorsB++;
    if (ec) t.errorsC++;
    if (item.b.truncated) t.truncB++;
    if (item.c.truncated) t.truncC++;
    if (item.b.truncatedNoAnswer) t.noAnswerB++;
    if (item.c.truncatedNoAnswer) t.noAnswerC++;
    const checked = (s: Side): boolean => s.verdict === 'pass' || s.verdict === 'fail';
    if (checked(item.b) && checked(item.c)) {
      t.repeatsB++;
      t.repeatsC++;
      if (item.b.verdict === 'pass') t.passedB++;
      if (item.c.verdict === 'pass') t.passedC++;
      if (!eb && !ec) {
        t.passTrials++;
        if (item.b.verdict === 'pass') t.passB++;
        if (item.c.verdict === 'pass') t.passC++;
        if (item.b.verdict !== item.c.verdict) t.passChanged++;
      }
    }
    t.scored += item.scored;
    t.scoreB += item.scoreB;
    t.scoreC += item.scoreC;
    t.validB += item.validB;
    t.checkedB += item.checkedB;
    t.validC += item.validC;
    t.checkedC += item.checkedC;
  }

  finish(bootstrap: BootstrapOptions): OutcomeSummary {
    this.flush();
    const all = [...this.clusters.values()];
    const col = (f: (t: ClusterTally) => number): number[] => all.map(f);
    const errorRate = pairedRateChange(col((t) => t.errorTrials), col((t) => t.errorsB), col((t) => t.errorsC), bootstrap);
    const truncatedRate = pairedRateChange(col((t) => t.errorTrials), col((t) => t.truncB), col((t) => t.truncC), bootstrap);
    const truncatedNoAnswerRate = pairedRateChange(col((t) => t.errorTrials), col((t) => t.noAnswerB), col((t) => t.noAnswerC), bootstrap);
    const passRate = pairedRateChange(col((t) => t.passTrials), col((t) => t.passB), col((t) => t.passC), bootstrap, col((t) => t.passChanged));
    const k = defaultK(all.map((t) => Math.min(t.repeatsB, t.repeatsC)));
    const withK = all.filter((t) => t.repeatsB >= k && t.repeatsC >= k);
    const hatB = withK.map((t) => passHatK(t.repeatsB, t.passedB, k)!);
    const hatC = withK.map((t) => passHatK(t.repeatsC, t.passedC, k)!);
    const meanOf = (xs: number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, x) => a + x, 0) / xs.length);
    const passHat: PassHatKChange = {
      k,
      questions: withK.length,
      baseline: meanOf(hatB),
      candidate: meanOf(hatC),
      change: withK.length === 0 ? null : meanOf(hatC)! - meanOf(hatB)!,
      test: signFlipTest(hatC.map((x, i) => x - hatB[i]!), bootstrap),
    };
    const judgeScore = pairedRateChange(col((t) => t.scored), col((t) => t.scoreB), col((t) => t.scoreC), bootstrap);
    // Citations are counted only where both sides checked some, so checkedB > 0 exactly when checkedC > 0.
    const citationValidity = pairedRateChange(
      col((t) => (t.checkedB > 0 ? 1 : 0)),
      col((t) => (t.checkedB > 0 ? t.validB / t.checkedB : 0)),
      col((t) => (t.checkedC > 0 ? t.validC / t.checkedC : 0)),
      bootstrap,
    );
    return {
      errorRate,
      passRate,
      truncatedRate,
      truncatedNoAnswerRate,
      passHatK: passHat,
      judgeScore,
      citationValidity,
      quarantined: { clusters: this.quarantinedIds.size, items: this.quarantinedItems, ids: [...this.quarantinedIds].slice(0, 50) },
    };
  }
}
