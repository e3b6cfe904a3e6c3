import type { ComparedQuestionRow, SearchExportRow } from '../../store/queries.js';
import { type Verdict, checksOfTurn, verdictOf } from '../expectations.js';
import { searchCount } from '../summary.js';
import type { Paired } from './pairing.js';
import { QUARANTINE_TAG } from './quarantine.js';
import { answerSimilarity, jaccard } from './similarity.js';

// One row of compare.csv: a question turn or a search, on both sides or on one.

/**
 * same: same state (and error code); new_error: ok in the baseline, failed in the candidate; fixed: the
 * reverse; changed: another difference (a different error, limit_hit vs complete); in_progress: a side has
 * not ended yet (not judged).
 */
export type StateChange = 'same' | 'new_error' | 'fixed' | 'changed' | 'in_progress';
/** new_failure: pass -> fail; fixed: fail -> pass; changed: checks appeared or disappeared. */
export type VerdictChange = 'same' | 'new_failure' | 'fixed' | 'changed';

export interface CompareRow {
  kind: 'question' | 'search';
  /** On a pooled baseline (window:K), the run the baseline side came from. */
  baselineRun?: number;
  pairing: Paired<unknown, unknown>['pairing'];
  targetBaseline: string | null;
  targetCandidate: string | null;
  itemId: string;
  repeat: number;
  turn: number | null;
  stateBaseline: string | null;
  stateCandidate: string | null;
  stateChange: StateChange | null;
  errorCodeBaseline: string | null;
  errorCodeCandidate: string | null;
  /** Both ended well (completed; complete or limit_hit): the pair counts in the metric aggregates. */
  comparable: boolean;
  latencySource: 'server' | 'wall' | 'duration' | null;
  latencyBaseline: number | null;
  latencyCandidate: number | null;
  tokensBaseline: number | null;
  tokensCandidate: number | null;
  creditsBaseline: number | null;
  creditsCandidate: number | null;
  toolCallsBaseline: number | null;
  toolCallsCandidate: number | null;
  sourcesJaccard: number | null;
  answerSimilarity: number | null;
  countBaseline: number | null;
  countCandidate: number | null;
  expectBaseline: Verdict | null;
  expectCandidate: Verdict | null;
  expectChange: VerdictChange | null;
  /** Item-level verdicts (all checks of the item), on the item's first row only (turn 0, or the search). */
  itemExpectBaseline: Verdict | null;
  itemExpectCandidate: Verdict | null;
  /** The item is tagged `quarantine` on a side: shown everywhere, judged by no gate. */
  quarantined: boolean;
  /**
   * What defines the item (its text, follow-ups, expectations; a search's query) differs between the runs: it
   * was edited under the same id. False when a side recorded no definition (runs from before it was recorded).
   */
  edited: boolean;
  judgeScoreBaseline: number | null;
  judgeScoreCandidate: number | null;
  citationsValidBaseline: number;
  citationsCheckedBaseline: number;
  citationsValidCandidate: number;
  citationsCheckedCandidate: number;
  /** The instance's trace of the turn or search on each side (run --trace); null when none was kept. */
  traceUrlBaseline: string | null;
  traceUrlCandidate: string | null;
}

const NO_GRADES = {
  judgeScoreBaseline: null,
  judgeScoreCandidate: null,
  citationsValidBaseline: 0,
  citationsCheckedBaseline: 0,
  citationsValidCandidate: 0,
  citationsCheckedCandidate: 0,
} as const;

const edited = (b: { definitionHash: string | null } | undefined, c: { definitionHash: string | null } | undefined): boolean =>
  b?.definitionHash != null && c?.definitionHash != null && b.definitionHash !== c.definitionHash;
const tagged = (tags: readonly string[] | undefined): boolean => tags?.includes(QUARANTINE_TAG) ?? false;
const taggedJson = (json: string | undefined): boolean => json !== undefined && tagged(JSON.parse(json) as string[]);

export const QUESTION_OK: ReadonlySet<string> = new Set(['completed']);
export const QUESTION_FAILED: ReadonlySet<string> = new Set(['error', 'canceled', 'timeout', 'client_error']);
export const SEARCH_OK: ReadonlySet<string> = new Set(['complete', 'limit_hit']);
export const SEARCH_FAILED: ReadonlySet<string> = new Set(['error', 'http_error', 'truncated']);

export function stateChange(
  b: { state: string; code: string | null },
  c: { state: string; code: string | null },
  ok: ReadonlySet<string>,
  failed: ReadonlySet<string>,
): StateChange {
  const ended = (s: string): boolean => ok.has(s) || failed.has(s);
  if (!ended(b.state) || !ended(c.state)) return 'in_progress';
  if (b.state === c.state && b.code === c.code) return 'same';
  if (ok.has(b.state) && failed.has(c.state)) return 'new_error';
  if (failed.has(b.state) && ok.has(c.state)) return 'fixed';
  return 'changed';
}

export function verdictChange(b: Verdict, c: Verdict): VerdictChange {
  if (b === c) return 'same';
  if (b === 'pass' && c === 'fail') return 'new_failure';
  if (b === 'fail' && c === 'pass') return 'fixed';
  return 'changed';
}

const delta = (b: number | null, c: number | null): number | null => (b === null || c === null ? null : c - b);
export { delta };

/** Latency of a pair: server time when both sides have it, else observed wall time, else none. */
function latency(b: ComparedQuestionRow, c: ComparedQuestionRow): Pick<CompareRow, 'latencySource' | 'latencyBaseline' | 'latencyCandidate'> {
  if (b.serverMs !== null && c.serverMs !== null) return { latencySource: 'server', latencyBaseline: b.serverMs, latencyCandidate: c.serverMs };
  if (b.wallMs !== null && c.wallMs !== null) return { latencySource: 'wall', latencyBaseline: b.wallMs, latencyCandidate: c.wallMs };
  return { latencySource: null, latencyBaseline: null, latencyCandidate: null };
}

const turnVerdict = (r: ComparedQuestionRow): Verdict => verdictOf(checksOfTurn(r.expectations, r.turn, r.lastTurn));

export function questionRow(p: Paired<ComparedQuestionRow, ComparedQuestionRow>): CompareRow {
  const one = (p.baseline ?? p.candidate)!;
  const b = p.baseline;
  const c = p.candidate;
  const both = b !== undefined && c !== undefined;
  const comparable = both && QUESTION_OK.has(b.state) && QUESTION_OK.has(c.state);
  const eb = b ? turnVerdict(b) : null;
  const ec = c ? turnVerdict(c) : null;
  return {
    kind: 'question',
    pairing: p.pairing,
    targetBaseline: b?.target ?? null,
    targetCandidate: c?.target ?? null,
    itemId: one.suiteItemId,
    repeat: one.repeat,
    turn: one.turn,
    stateBaseline: b?.state ?? null,
    stateCandidate: c?.state ?? null,
    stateChange: both ? stateChange({ state: b.state, code: b.errorCode }, { state: c.state, code: c.errorCode }, QUESTION_OK, QUESTION_FAILED) : null,
    errorCodeBaseline: b?.errorCode ?? null,
    errorCodeCandidate: c?.errorCode ?? null,
    comparable,
    ...(both ? latency(b, c) : { latencySource: null, latencyBaseline: b?.serverMs ?? b?.wallMs ?? null, latencyCandidate: c?.serverMs ?? c?.wallMs ?? null }),
    tokensBaseline: b?.totalTokens ?? null,
    tokensCandidate: c?.totalTokens ?? null,
    creditsBaseline: b?.credits ?? null,
    creditsCandidate: c?.credits ?? null,
    toolCallsBaseline: b?.toolCalls ?? null,
    toolCallsCandidate: c?.toolCalls ?? null,
    sourcesJaccard: both ? jaccard(b.sourceLinks, c.sourceLinks) : null,
    answerSimilarity: both && (b.answer !== null || c.answer !== null) ? answerSimilarity(b.answer, c.answer) : null,
    countBaseline: null,
    countCandidate: null,
    expectBaseline: eb,
    expectCandidate: ec,
    expectChange: eb !== null && ec !== null ? verdictChange(eb, ec) : null,
    itemExpectBaseline: b && b.turn === 0 ? verdictOf(b.expectations) : null,
    itemExpectCandidate: c && c.turn === 0 ? verdictOf(c.expectations) : null,
    quarantined: taggedJson(b?.tagsJson) || taggedJson(c?.tagsJson),
    edited: edited(b, c),
    judgeScoreBaseline: b?.judgeScore ?? null,
    judgeScoreCandidate: c?.judgeScore ?? null,
    citationsValidBaseline: b?.citationsValid ?? 0,
    citationsCheckedBaseline: b ? b.citationsValid + b.citationsInvalid : 0,
    citationsValidCandidate: c?.citationsValid ?? 0,
    citationsCheckedCandidate: c ? c.citationsValid + c.citationsInvalid : 0,
    traceUrlBaseline: b?.traceUrl ?? null,
    traceUrlCandidate: c?.traceUrl ?? null,
  };
}

export function searchRow(p: Paired<SearchExportRow, SearchExportRow>): CompareRow {
  const one = (p.baseline ?? p.candidate)!;
  const b = p.baseline;
  const c = p.candidate;
  const both = b !== undefined && c !== undefined;
  const eb = b ? verdictOf(b.expectations) : null;
  const ec = c ? verdictOf(c.expectations) : null;
  const byDuration = both && b.durationMs !== null && c.durationMs !== null;
  return {
    kind: 'search',
    pairing: p.pairing,
    targetBaseline: b?.target ?? null,
    targetCandidate: c?.target ?? null,
    itemId: one.suiteItemId,
    repeat: one.repeat,
    turn: null,
    stateBaseline: b?.verdict ?? null,
    stateCandidate: c?.verdict ?? null,
    stateChange: both ? stateChange({ state: b.verdict, code: null }, { state: c.verdict, code: null }, SEARCH_OK, SEARCH_FAILED) : null,
    errorCodeBaseline: b?.httpStatus != null ? String(b.httpStatus) : null,
    errorCodeCandidate: c?.httpStatus != null ? String(c.httpStatus) : null,
    comparable: both && SEARCH_OK.has(b.verdict) && SEARCH_OK.has(c.verdict),
    latencySource: both ? (byDuration ? 'duration' : 'wall') : null,
    latencyBaseline: b ? (byDuration ? b.durationMs : b.wallMs) : null,
    latencyCandidate: c ? (byDuration ? c.durationMs : c.wallMs) : null,
    tokensBaseline: null,
    tokensCandidate: null,
    creditsBaseline: null,
    creditsCandidate: null,
    toolCallsBaseline: null,
    toolCallsCandidate: null,
    sourcesJaccard: null,
    answerSimilarity: null,
    countBaseline: b ? searchCount(b) : null,
    countCandidate: c ? searchCount(c) : null,
    expectBaseline: eb,
    expectCandidate: ec,
    expectChange: eb !== null && ec !== null ? verdictChange(eb, ec) : null,
    itemExpectBaseline: eb,
    itemExpectCandidate: ec,
    quarantined: tagged(b?.tags) || tagged(c?.tags),
    edited: edited(b, c),
    ...NO_GRADES,
    traceUrlBaseline: b?.traceUrl ?? null,
    traceUrlCandidate: c?.traceUrl ?? null,
  };
}
