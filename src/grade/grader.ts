import type pLimit from 'p-limit';
import type { Judge, TurnExpect } from '../config/suite.js';
import type { ResolvedQuestion } from '../config/resolve-suite.js';
import type { Source } from '../model/conversation.js';
import { DsbenchError } from '../errors/errors.js';
import { redact } from '../redact.js';
import { citesChecks, summarize, type CitationChecker } from './citations.js';
import type { JudgeClient } from './judge-client.js';
import { extractCitations, isCheckable } from './links.js';
import { citesRecallCheck } from './recall.js';
import { GRADE_PROMPT_HASH, GRADE_PROMPT_VERSION, gradePrompt, inputsHash } from './prompt.js';
import type { GradeRecord, GradeStore, GradingExpectation, ItemGrading } from '../model/grading.js';
import { GradeVerdictSchema, parseVerdict } from './judge-verdict.js';

/** A recorded turn as grading reads it. */
export interface GradedTurn {
  turn: number;
  state: string;
  text: string;
  answer?: string | undefined;
  /** The answer came with an error state (an output limit, say): it is graded, and its grade says so. */
  partial?: boolean | undefined;
  sources?: Source[] | undefined;
}

export interface GraderContext {
  judge: Judge & { explicit: boolean };
  /** Absent when nothing in the suite needs a judge, or when it is unavailable. */
  client: JudgeClient | undefined;
  /** Why the judge is not used (its check before the run failed): such turns are not graded and say so. */
  judgeUnavailable?: string | undefined;
  store: GradeStore;
  /** The judge's own concurrency limit, shared by every item of the run. */
  limit: ReturnType<typeof pLimit>;
  /** Absent when citations cannot be checked (no instance); then none are. */
  citations: CitationChecker | undefined;
  signal?: AbortSignal | undefined;
}

export interface GradeOutcome {
  passed: number;
  failed: number;
  judgeCalls: number;
  cacheHits: number;
  judgeTokens: number;
  /** One line per turn whose grading failed (judge down, not a verdict, ...), for the log. */
  problems: string[];
}

interface Spec {
  turn: number;
  spec: 'question' | 'followup';
  expect: TurnExpect;
}

const gradable = (e: TurnExpect) => e.rubric !== undefined || e.reference !== undefined;
const citable = (e: TurnExpect) => e.cites !== undefined || e.minCitationValidity !== undefined || e.citesRecall !== undefined;

/** Whether grading has anything to do for a question of this suite. */
export function needsGrading(question: ResolvedQuestion, judge: Judge & { explicit: boolean }): boolean {
  if (judge.explicit && judge.citations) return true;
  return [question.expect, ...question.followups.map((f) => f.expect)].some((e) => gradable(e) || citable(e));
}

/**
 * Grades one recorded conversation: each rubric or reference by the judge (cached by model, prompt
 * and inputs), each answered turn's citations, `cites:` recall; records grades, citations and the
 * resulting expectations in one transaction. Never throws for a judge or instance failure: the turn's
 * grade records the error and fails its gate.
 */
export async function gradeItem(ctx: GraderContext, runId: number, key: string, question: ResolvedQuestion, turns: readonly GradedTurn[]): Promise<GradeOutcome> {
  const outcome: GradeOutcome = { passed: 0, failed: 0, judgeCalls: 0, cacheHits: 0, judgeTokens: 0, problems: [] };
  const asked = [...turns].sort((a, b) => a.turn - b.turn);
  const last = asked[asked.length - 1];
  if (!last) return outcome;
  const specs: Spec[] = [];
  for (const t of asked) {
    const own = t.turn > 0 ? question.followups[t.turn - 1]?.expect : undefined;
    if (own) specs.push({ turn: t.turn, spec: 'followup', expect: own });
  }
  specs.push({ turn: last.turn, spec: 'question', expect: question.expect });

  const grading: ItemGrading = { grades: [], citations: [], expectations: [] };
  const expect = (e: GradingExpectation) => {
    grading.expectations.push(e);
    if (e.passed) outcome.passed++;
    else outcome.failed++;
  };

  const byTurn = new Map(asked.map((t) => [t.turn, t]));
  const citationTurns = new Set(asked.filter((t) => (ctx.judge.explicit && ctx.judge.citations) || specs.some((s) => s.turn === t.turn && citable(s.expect))).map((t) => t.turn));
  const checked = new Map<number, ReturnType<typeof summarize>>();
  await Promise.all(
    [...citationTurns].map(async (turn) => {
      const t = byTurn.get(turn)!;
      if (!ctx.citations || t.answer === undefined) return;
      const found = extractCitations(t.answer, t.sources ?? []);
      const results = await Promise.all(found.map((c) => ctx.citations!.check(c, ctx.signal)));
      checked.set(turn, summarize(results));
      grading.citations.push({ turn, citations: results, checkedAt: new Date().toISOString() });
    }),
  );

  await Promise.all(
    specs.map(async (s) => {
      const t = byTurn.get(s.turn)!;
      if (gradable(s.expect)) {
        const grade = await judgeTurn(ctx, s, t, outcome);
        grading.grades.push(grade);
        expect({ name: 'minScore', passed: grade.passed, reason: gradeReason(grade), turn: s.turn });
      }
      if (citable(s.expect)) {
        const summary = checked.get(s.turn);
        if (s.expect.minCitationValidity !== undefined) expect({ name: 'minCitationValidity', turn: s.turn, ...validityCheck(s.expect.minCitationValidity, summary, t, ctx) });
        for (const c of citesChecks(s.expect.cites ?? [], t.answer ?? '', summary?.citations ?? [])) expect({ name: 'cites', turn: s.turn, ...c });
        if (s.expect.citesRecall) expect({ name: 'citesRecall', turn: s.turn, ...citesRecallCheck(s.expect.citesRecall, t.answer ?? '', summary?.citations ?? []) });
      }
    }),
  );
  grading.grades.sort((a, b) => a.turn - b.turn || a.spec.localeCompare(b.spec));
  grading.expectations.sort((a, b) => a.turn - b.turn);
  ctx.store.recordGrading(runId, key, grading);
  return outcome;
}

function validityCheck(min: number, summary: ReturnType<typeof summarize> | undefined, t: GradedTurn, ctx: GraderContext): { passed: boolean; reason: string } {
  if (!ctx.citations) return { passed: false, reason: 'not checked: no instance to check citations against' };
  if (t.answer === undefined) return { passed: false, reason: `no answer to check: the turn ended ${t.state}` };
  const counted = summary?.citations.filter(isCheckable) ?? [];
  if (!summary || counted.length === 0) return { passed: false, reason: summary?.citations.length ? 'the answer cites only commits, no file' : 'the answer cites nothing' };
  if (summary.validity === undefined) return { passed: false, reason: `none of ${summary.unchecked} citations could be checked: ${counted[0]?.reason ?? ''}` };
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  return {
    passed: summary.validity >= min,
    reason: `${summary.valid} of ${summary.valid + summary.invalid} citations resolve (${pct(summary.validity)}, at least ${pct(min)} expected)${summary.unchecked > 0 ? `; ${summary.unchecked} could not be checked` : ''}`,
  };
}

async function judgeTurn(ctx: GraderContext, s: Spec, t: GradedTurn, outcome: GradeOutcome): Promise<GradeRecord> {
  const minScore = s.expect.minScore ?? ctx.judge.minScore;
  const inputs = { question: t.text, answer: t.answer ?? '', rubric: s.expect.rubric, reference: s.expect.reference, preamble: ctx.judge.preamble };
  const base = {
    turn: s.turn,
    spec: s.spec,
    minScore,
    promptVersion: GRADE_PROMPT_VERSION,
    promptHash: GRADE_PROMPT_HASH,
    inputsHash: inputsHash(inputs),
    gradedAt: new Date().toISOString(),
  };
  const partial = t.state !== 'completed' && t.partial === true;
  if ((t.state !== 'completed' && !partial) || t.answer === undefined || t.answer.trim() === '') {
    return { ...base, status: 'no_answer', passed: false, reasons: [], error: `no answer to grade: the turn ended ${t.state}`, model: ctx.judge.model ?? '', cached: false };
  }
  let model = ctx.judge.model ?? '';
  try {
    if (ctx.judgeUnavailable !== undefined) throw new Error(`the judge is unavailable: ${ctx.judgeUnavailable}`);
    if (!ctx.client) throw new Error('no judge configured');
    model = await ctx.client.model(ctx.signal);
    const key = { model, promptHash: base.promptHash, inputsHash: base.inputsHash };
    let reply = ctx.store.cachedJudgeReply(key);
    const cached = reply !== undefined;
    if (cached) outcome.cacheHits++;
    else {
      reply = await ctx.limit(() => ctx.client!.complete(gradePrompt(inputs), ctx.signal));
      outcome.judgeCalls++;
      outcome.judgeTokens += (reply.promptTokens ?? 0) + (reply.completionTokens ?? 0);
    }
    const tokens = { promptTokens: reply!.promptTokens, completionTokens: reply!.completionTokens };
    const parsed = parseVerdict(GradeVerdictSchema, reply!.content);
    if (!parsed.ok) {
      outcome.problems.push(`turn ${s.turn}: ${parsed.why}`);
      return { ...base, ...tokens, status: 'unparseable', passed: false, reasons: [], error: parsed.why, model, cached };
    }
    // Only verdicts are cached: a reply that was not one is asked again next time.
    if (!cached) ctx.store.cacheJudgeReply(key, reply!, new Date().toISOString());
    const { score, pass, reasons } = parsed.verdict;
    const said = partial ? [`partial answer: the turn ended ${t.state}; graded on what it wrote before`, ...reasons] : reasons;
    return { ...base, ...tokens, status: 'graded', score, judgePass: pass, passed: score >= minScore, reasons: said, model, cached };
  } catch (error) {
    const message = redact(error instanceof DsbenchError || error instanceof Error ? error.message : String(error));
    // An unavailable judge was said once, before the run; each turn's grade records it.
    if (ctx.judgeUnavailable === undefined) outcome.problems.push(`turn ${s.turn}: ${message}`);
    return { ...base, status: 'error', passed: false, reasons: [], error: message, model, cached: false };
  }
}

function gradeReason(g: GradeRecord): string {
  switch (g.status) {
    case 'graded':
      return `score ${g.score} ${g.passed ? '>=' : '<'} ${g.minScore}${g.reasons.length > 0 ? `: ${g.reasons.join('; ')}` : ''}`;
    case 'unparseable':
      return `not graded: ${g.error}`;
    default:
      return `not graded: ${g.error}`;
  }
}
