import type Database from 'better-sqlite3';
import type pLimit from 'p-limit';
import { DsbenchError } from '../errors/errors.js';
import type { ResolvedSuite } from '../config/resolve-suite.js';
import type { JudgeClient } from './judge-client.js';
import { inputsHash, PAIRWISE_PROMPT_HASH, pairwisePrompt, type PairwiseInputs } from './prompt.js';
import type { GradeStore, JudgeReply } from '../model/grading.js';
import { PairwiseVerdictSchema, parseVerdict } from './judge-verdict.js';
import { clusteredRate, type RateEstimate } from '../stats/cluster-rate.js';

/** One side of a pairwise comparison: a run of a database, one of its targets or all of them. */
export interface PairwiseSide {
  db: Database.Database;
  runId: number;
  target: string | null;
}

export type PairOutcome = 'win' | 'loss' | 'tie' | 'undecided';

export interface PairwiseResult {
  pairs: number;
  wins: number;
  losses: number;
  ties: number;
  /** Pairs without two verdicts (judge failed or replied something else); left out of the rates. */
  undecided: number;
  /** Questions (per target when both sides span targets) the decided pairs belong to: what the intervals resample. */
  questions: number;
  /** The candidate's rates among decided pairs, each with a bootstrap interval over questions. */
  winRate: Rate | undefined;
  lossRate: Rate | undefined;
  tieRate: Rate | undefined;
  /** Mean of candidate minus baseline judge scores over turns graded in both runs. */
  scoreDelta: { pairs: number; mean: number } | undefined;
  /** Candidate minus baseline share of valid citations (both runs' recorded checks). */
  citationValidity: { baseline: number | undefined; candidate: number | undefined; delta: number | undefined };
  judgeCalls: number;
  cacheHits: number;
  problems: string[];
}

export interface Rate {
  value: number;
  low: number;
  high: number;
  method: RateEstimate['method'];
}

export interface Guide {
  rubric?: string | undefined;
  reference?: string | undefined;
}

interface Turn {
  key: string;
  suiteItemId: string;
  turn: number;
  text: string;
  answer: string;
}

/**
 * What the judge is told a good answer is, per turn of a suite question: a follow-up's own rubric and
 * reference, else the question's on its last turn (where `dsbench grade` checks the question's expect).
 */
export function suiteGuide(suite: ResolvedSuite): (suiteItemId: string, turn: number) => Guide {
  const questions = new Map(suite.questions.map((q) => [q.id, q]));
  return (id, turn) => {
    const q = questions.get(id);
    if (!q) return {};
    const own = turn > 0 ? q.followups[turn - 1]?.expect : undefined;
    const expect = own?.rubric !== undefined || own?.reference !== undefined ? own : turn === q.followups.length ? q.expect : undefined;
    return { rubric: expect?.rubric, reference: expect?.reference };
  };
}

/** Last-turn-or-not, every completed turn with an answer, keyed by question id, repeat and turn (and target when given). */
function answers(side: PairwiseSide, byTarget: boolean): Map<string, Turn> {
  const rows = side.db
    .prepare(
      `SELECT i.target, i.suite_item_id, i.repeat, t.turn, t.text, t.answer FROM turns t JOIN items i ON i.run_id = t.run_id AND i.key = t.item_key
       WHERE t.run_id = ? AND t.state = 'completed' AND t.answer IS NOT NULL AND (? IS NULL OR i.target = ?)`,
    )
    .all(side.runId, side.target, side.target) as Array<{ target: string; suite_item_id: string; repeat: number; turn: number; text: string; answer: string }>;
  return new Map(rows.map((r) => [[byTarget ? r.target : '', r.suite_item_id, r.repeat, r.turn].join('\u0000'), { key: `${r.suite_item_id}/${r.repeat}/${r.turn}`, suiteItemId: r.suite_item_id, turn: r.turn, text: r.text, answer: r.answer }]));
}

export interface PairwiseOptions {
  baseline: PairwiseSide;
  candidate: PairwiseSide;
  judge: JudgeClient;
  /** Where judge replies are cached (the candidate's database). */
  cache: GradeStore;
  limit: ReturnType<typeof pLimit>;
  preamble?: string | undefined;
  /** The rubric and reference answer that apply to a turn of a suite question, when the suite is known. */
  guide?: ((suiteItemId: string, turn: number) => Guide) | undefined;
  bootstrap: { resamples: number; confidence: number; seed: number };
}

/**
 * For each question answered in both runs, asks the judge which answer is better twice, with the order
 * swapped: the candidate wins (or loses) only when both verdicts agree; a split or a "tie" is a tie.
 */
export async function comparePairwise(o: PairwiseOptions): Promise<PairwiseResult> {
  const byTarget = o.baseline.target === null && o.candidate.target === null;
  const base = answers(o.baseline, byTarget);
  const cand = answers(o.candidate, byTarget);
  const result: PairwiseResult = {
    pairs: 0, wins: 0, losses: 0, ties: 0, undecided: 0, questions: 0, winRate: undefined, lossRate: undefined, tieRate: undefined,
    scoreDelta: scoreDelta(o.baseline, o.candidate, byTarget),
    citationValidity: validityDelta(o.baseline, o.candidate),
    judgeCalls: 0, cacheHits: 0, problems: [],
  };
  const outcomes: Judged[] = [];
  await Promise.all(
    [...base].map(async ([key, b]) => {
      const c = cand.get(key);
      if (!c) return;
      result.pairs++;
      const ask = async (inputs: PairwiseInputs): Promise<'A' | 'B' | 'tie' | undefined> => {
        try {
          const model = await o.judge.model();
          const cacheKey = { model, promptHash: PAIRWISE_PROMPT_HASH, inputsHash: inputsHash(inputs) };
          let reply: JudgeReply | undefined = o.cache.cachedJudgeReply(cacheKey);
          const cached = reply !== undefined;
          if (cached) result.cacheHits++;
          else {
            reply = await o.limit(() => o.judge.complete(pairwisePrompt(inputs)));
            result.judgeCalls++;
          }
          const parsed = parseVerdict(PairwiseVerdictSchema, reply!.content);
          if (!parsed.ok) {
            result.problems.push(`${b.key}: ${parsed.why}`);
            return undefined;
          }
          if (!cached) o.cache.cacheJudgeReply(cacheKey, reply!, new Date().toISOString());
          return parsed.verdict.winner;
        } catch (error) {
          result.problems.push(`${b.key}: ${error instanceof DsbenchError || error instanceof Error ? error.message : String(error)}`);
          return undefined;
        }
      };
      const common = { question: c.text, preamble: o.preamble, ...o.guide?.(c.suiteItemId, c.turn) };
      const [first, second] = await Promise.all([ask({ ...common, answerA: b.answer, answerB: c.answer }), ask({ ...common, answerA: c.answer, answerB: b.answer })]);
      // The key's target and question id: repeats and turns of one question are resampled together.
      outcomes.push({ question: key.split('\u0000', 2).join('\u0000'), outcome: outcomeOf(first, second) });
    }),
  );
  for (const { outcome } of outcomes) {
    if (outcome === 'win') result.wins++;
    else if (outcome === 'loss') result.losses++;
    else if (outcome === 'tie') result.ties++;
    else result.undecided++;
  }
  const rates = decidedRates(outcomes, o.bootstrap);
  if (rates) Object.assign(result, rates);
  return result;
}

interface Judged {
  question: string;
  outcome: PairOutcome;
}

const DECIDED = ['win', 'loss', 'tie'] as const;

/**
 * The shares of wins, losses and ties among decided pairs, each with its interval over questions: a
 * question's repeats and turns are correlated, so whole questions are resampled (the run report's
 * clustered rate, in its key order so the same outcomes and seed give the same intervals).
 */
function decidedRates(judged: readonly Judged[], b: { resamples: number; confidence: number; seed: number }): Pick<PairwiseResult, 'questions' | 'winRate' | 'lossRate' | 'tieRate'> | undefined {
  const byQuestion = new Map<string, number[]>();
  for (const { question, outcome } of judged) {
    const at = DECIDED.indexOf(outcome as (typeof DECIDED)[number]);
    if (at < 0) continue;
    const counts = byQuestion.get(question) ?? [0, 0, 0];
    counts[at]!++;
    byQuestion.set(question, counts);
  }
  const counts = [...byQuestion.keys()].sort().map((q) => byQuestion.get(q)!);
  if (counts.length === 0) return undefined;
  const trials = counts.map((c) => c[0]! + c[1]! + c[2]!);
  const rate = (at: number): Rate => {
    const r = clusteredRate(counts.map((c) => c[at]!), trials, b);
    return { value: r.value!, low: r.low!, high: r.high!, method: r.method };
  };
  return { questions: counts.length, winRate: rate(0), lossRate: rate(1), tieRate: rate(2) };
}

/** `first` has the baseline as A, `second` the candidate as A. */
export function outcomeOf(first: 'A' | 'B' | 'tie' | undefined, second: 'A' | 'B' | 'tie' | undefined): PairOutcome {
  if (first === undefined || second === undefined) return 'undecided';
  const candidateFirst = first === 'B' ? 'win' : first === 'A' ? 'loss' : 'tie';
  const candidateSecond = second === 'A' ? 'win' : second === 'B' ? 'loss' : 'tie';
  return candidateFirst === candidateSecond ? candidateFirst : 'tie';
}

function scoreDelta(b: PairwiseSide, c: PairwiseSide, byTarget: boolean): PairwiseResult['scoreDelta'] {
  const scores = (side: PairwiseSide) =>
    new Map(
      (
        side.db
          .prepare(
            `SELECT i.target, i.suite_item_id, i.repeat, g.turn, g.spec, g.score FROM grades g JOIN items i ON i.run_id = g.run_id AND i.key = g.item_key
             WHERE g.run_id = ? AND g.status = 'graded' AND (? IS NULL OR i.target = ?)`,
          )
          .all(side.runId, side.target, side.target) as Array<{ target: string; suite_item_id: string; repeat: number; turn: number; spec: string; score: number }>
      ).map((r) => [[byTarget ? r.target : '', r.suite_item_id, r.repeat, r.turn, r.spec].join('\u0000'), r.score]),
    );
  const bs = scores(b);
  const cs = scores(c);
  const deltas = [...bs].flatMap(([k, s]) => (cs.has(k) ? [cs.get(k)! - s] : []));
  return deltas.length === 0 ? undefined : { pairs: deltas.length, mean: deltas.reduce((s, x) => s + x, 0) / deltas.length };
}

function validityDelta(b: PairwiseSide, c: PairwiseSide): PairwiseResult['citationValidity'] {
  const validity = (side: PairwiseSide) => {
    const row = side.db
      .prepare(
        `SELECT sum(c.status = 'valid') AS valid, sum(c.status = 'invalid') AS invalid FROM citations c JOIN items i ON i.run_id = c.run_id AND i.key = c.item_key
         WHERE c.run_id = ? AND (? IS NULL OR i.target = ?)`,
      )
      .get(side.runId, side.target, side.target) as { valid: number | null; invalid: number | null };
    const total = (row.valid ?? 0) + (row.invalid ?? 0);
    return total === 0 ? undefined : (row.valid ?? 0) / total;
  };
  const baseline = validity(b);
  const candidate = validity(c);
  return { baseline, candidate, delta: baseline === undefined || candidate === undefined ? undefined : candidate - baseline };
}

/** The pairwise section of compare's text output. */
export function formatPairwise(r: PairwiseResult, confidence: number): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const rateText = (name: string, x: Rate | undefined) => (x ? `${name} ${pct(x.value)} [${pct(x.low)}, ${pct(x.high)}]` : `${name} n/a`);
  const lines = [
    `\nPairwise (judge, both orders): ${r.pairs} paired answers, candidate ${r.wins} wins, ${r.losses} losses, ${r.ties} ties${r.undecided > 0 ? `, ${r.undecided} undecided` : ''}`,
    `  ${rateText('win', r.winRate)}, ${rateText('loss', r.lossRate)}, ${rateText('tie', r.tieRate)} (${Math.round(confidence * 100)}% intervals over ${r.questions} question${r.questions === 1 ? '' : 's'}: ${methods(r)})`,
    `  score delta: ${r.scoreDelta ? `${r.scoreDelta.mean >= 0 ? '+' : ''}${r.scoreDelta.mean.toFixed(3)} over ${r.scoreDelta.pairs} graded turns` : 'n/a (grade both runs with dsbench grade)'}`,
    `  citation validity: ${r.citationValidity.baseline === undefined ? 'n/a' : pct(r.citationValidity.baseline)} -> ${r.citationValidity.candidate === undefined ? 'n/a' : pct(r.citationValidity.candidate)}`,
    `  judge: ${r.judgeCalls} calls, ${r.cacheHits} from cache`,
  ];
  return `${lines.join('\n')}\n`;
}

/** How the rates' intervals were made, each way once. */
function methods(r: PairwiseResult): string {
  return [...new Set([r.winRate, r.lossRate, r.tieRate].flatMap((x) => (x ? [x.method] : [])))].join(', ') || 'none';
}
