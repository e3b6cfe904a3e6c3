import type { QuotaSnapshotRow, TurnMetricRow } from '../store/queries.js';
import type { Column } from './csv.js';
import { RunningSum } from '../stats/percentiles.js';
import type { QuestionSummaryRow } from './summary.js';

// costs.csv: what the run cost and how long the quota lasts. One file, rows of five sections
// (the `section` column): question, tag, target, quota_snapshot, projection. Columns a section does not
// use are empty.

export type CostSection = 'question' | 'tag' | 'target' | 'quota_snapshot' | 'projection';

export interface CostRow {
  runId: number;
  section: CostSection;
  target: string;
  tag?: string;
  questionId?: string;
  /** Conversations (items with at least one asked question). */
  conversations?: number;
  /** Asked questions (turns). */
  questions?: number;
  questionsWithCredits?: number;
  creditsSum?: number | null;
  /** Per asked question that reported credits. */
  creditsMean?: number | null;
  creditsPerConversation?: number | null;
  creditsPer1000Questions?: number | null;
  creditsP90?: number | null;
  at?: string;
  totalQuota?: number;
  quotaLimit?: number | null;
  quotaRemaining?: number | null;
  resetTime?: string | null;
  quotaUsedInRun?: number | null;
  creditsPerSuiteRun?: number | null;
  suiteRunBasis?: string;
  runsLeft?: number | null;
  secondsToReset?: number | null;
  timeToReset?: string;
  note?: string;
}

interface QuestionCost {
  target: string;
  questionId: string;
  conversations: number;
  questions: number;
  credits: RunningSum;
}

/** Feed every turn (`addTurn`), then `rows()` with the summary's rows and the quota snapshots. */
export class CostAnalysis {
  private readonly perQuestion = new Map<string, QuestionCost>();
  private readonly conversations = new Map<string, number>();
  /** The last question counted: an item's turns come one after another. */
  private last: QuestionCost | undefined;

  constructor(private readonly runId: number) {}

  addTurn(t: TurnMetricRow): void {
    let q = this.last;
    if (q === undefined || q.target !== t.target || q.questionId !== t.suiteItemId) {
      const key = `${t.target}\u0000${t.suiteItemId}`;
      q = this.perQuestion.get(key);
      if (!q) this.perQuestion.set(key, (q = { target: t.target, questionId: t.suiteItemId, conversations: 0, questions: 0, credits: new RunningSum() }));
      this.last = q;
    }
    q.questions++;
    if (t.turn === 0) {
      q.conversations++;
      this.conversations.set(t.target, (this.conversations.get(t.target) ?? 0) + 1);
    }
    q.credits.add(t.credits);
  }

  rows(input: { summary: readonly QuestionSummaryRow[]; snapshots: readonly QuotaSnapshotRow[]; runComplete: boolean; now: Date }): CostRow[] {
    const rows: CostRow[] = [];
    const targets = input.summary.filter((s) => s.scope === 'target');
    const order = targets.map((t) => t.target);
    const questions = [...this.perQuestion.values()].sort(
      (a, b) => rankOf(order, a.target) - rankOf(order, b.target) || compare(a.questionId, b.questionId),
    );
    for (const q of questions) {
      rows.push({
        runId: this.runId,
        section: 'question',
        target: q.target,
        questionId: q.questionId,
        conversations: q.conversations,
        questions: q.questions,
        questionsWithCredits: q.credits.count,
        creditsSum: q.credits.sum,
        creditsMean: q.credits.mean,
        creditsPerConversation: q.credits.sum === null || q.conversations === 0 ? null : q.credits.sum / q.conversations,
        creditsPer1000Questions: per1000(q.credits.mean),
      });
    }
    for (const s of input.summary.filter((r) => r.scope === 'tag')) rows.push(this.groupRow('tag', s));
    for (const s of targets) rows.push(this.groupRow('target', s));
    for (const snap of input.snapshots) {
      rows.push({
        runId: this.runId,
        section: 'quota_snapshot',
        target: snap.target,
        at: snap.at,
        totalQuota: snap.totalQuota,
        quotaLimit: snap.quotaLimit,
        quotaRemaining: remaining(snap),
        resetTime: snap.resetTime,
        ...(snap.quotaLimit < 0 && { note: 'unlimited quota (quota_limit -1)' }),
      });
    }
    for (const s of targets) rows.push(this.projection(s, input.snapshots.filter((q) => q.target === s.target), input.runComplete, input.now));
    return rows;
  }

  private groupRow(section: 'tag' | 'target', s: QuestionSummaryRow): CostRow {
    return {
      runId: this.runId,
      section,
      target: s.target,
      ...(section === 'tag' && { tag: s.tag }),
      ...(section === 'target' && { conversations: this.conversations.get(s.target) ?? 0 }),
      questions: s.questions,
      questionsWithCredits: s.credits.count,
      creditsSum: s.credits.sum,
      creditsMean: s.credits.mean,
      creditsP90: s.credits.p90,
      creditsPer1000Questions: per1000(s.credits.mean),
      ...(section === 'target' && {
        creditsPerConversation: s.credits.sum === null || !this.conversations.get(s.target) ? null : s.credits.sum / this.conversations.get(s.target)!,
      }),
    };
  }

  private projection(s: QuestionSummaryRow, snapshots: readonly QuotaSnapshotRow[], runComplete: boolean, now: Date): CostRow {
    const first = snapshots[0];
    const last = snapshots.at(-1);
    const started = this.conversations.get(s.target) ?? 0;
    const quotaUsedInRun = first && last && snapshots.length > 1 ? last.totalQuota - first.totalQuota : null;
    const perRun = suiteRunCost({ creditsSum: s.credits.sum, items: s.items, started, complete: runComplete && s.pending === 0 && s.running === 0, quotaUsedInRun });
    const row: CostRow = {
      runId: this.runId,
      section: 'projection',
      target: s.target,
      conversations: started,
      questions: s.questions,
      creditsSum: s.credits.sum,
      quotaUsedInRun,
      creditsPerSuiteRun: perRun.credits,
      suiteRunBasis: perRun.basis,
    };
    if (!last) return { ...row, note: 'no quota snapshot recorded (the versioned API reports no quota)' };
    const toReset = last.resetTime ? (Date.parse(last.resetTime) - now.getTime()) / 1000 : null;
    Object.assign(row, {
      at: last.at,
      totalQuota: last.totalQuota,
      quotaLimit: last.quotaLimit,
      quotaRemaining: remaining(last),
      resetTime: last.resetTime,
      secondsToReset: toReset === null || Number.isNaN(toReset) ? null : Math.round(toReset),
      timeToReset: toReset === null || Number.isNaN(toReset) ? 'no reset time' : toReset <= 0 ? 'reset time passed' : humanDuration(toReset),
    });
    row.runsLeft = runsLeft(last, perRun.credits);
    row.note =
      last.quotaLimit < 0
        ? 'unlimited quota (quota_limit -1): no limit to run out of'
        : perRun.credits === null || perRun.credits <= 0
          ? 'no credits recorded, so no projection'
          : `${row.runsLeft} more runs of this suite fit in the remaining quota${toReset !== null && toReset > 0 ? ` before it resets in ${humanDuration(toReset)}` : ''}`;
    return row;
  }
}

/** What one run of the suite costs on a target, and how that was found. */
export function suiteRunCost(input: {
  creditsSum: number | null;
  /** Question items planned for the target. */
  items: number;
  /** Items with at least one asked question. */
  started: number;
  complete: boolean;
  quotaUsedInRun: number | null;
}): { credits: number | null; basis: string } {
  if (input.creditsSum !== null && input.started > 0) {
    if (input.complete || input.started >= input.items) return { credits: input.creditsSum, basis: 'measured: credits of this run' };
    return {
      credits: (input.creditsSum / input.started) * input.items,
      basis: `estimated: mean credits of ${input.started} started of ${input.items} planned conversations, times ${input.items}`,
    };
  }
  if (input.quotaUsedInRun !== null && input.quotaUsedInRun > 0) {
    return { credits: input.quotaUsedInRun, basis: 'quota used between the first and last snapshot (includes other use of the same account)' };
  }
  return { credits: null, basis: 'no credits recorded' };
}

/** Whole runs that fit in the remaining quota; null when unlimited or the cost is unknown. */
export function runsLeft(snapshot: Pick<QuotaSnapshotRow, 'totalQuota' | 'quotaLimit'>, creditsPerRun: number | null): number | null {
  const left = remaining(snapshot);
  if (left === null || creditsPerRun === null || creditsPerRun <= 0) return null;
  return Math.max(0, Math.floor(left / creditsPerRun + 1e-9));
}

/** Quota left; null for unlimited (quota_limit -1). */
export function remaining(snapshot: Pick<QuotaSnapshotRow, 'totalQuota' | 'quotaLimit'>): number | null {
  return snapshot.quotaLimit < 0 ? null : Math.max(0, snapshot.quotaLimit - snapshot.totalQuota);
}

/** 93784 s -> "1d 2h 3m". */
export function humanDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d}d ${h}h ${m}m`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s % 60}s`;
  return `${s}s`;
}

const per1000 = (mean: number | null): number | null => (mean === null ? null : mean * 1000);
const rankOf = (order: readonly string[], t: string): number => (order.includes(t) ? order.indexOf(t) : order.length);
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** costs.csv columns, stable. */
export const COST_COLUMNS: ReadonlyArray<Column<CostRow>> = [
  { name: 'run_id', value: (r) => r.runId },
  { name: 'section', value: (r) => r.section },
  { name: 'target', value: (r) => r.target },
  { name: 'tag', value: (r) => r.tag },
  { name: 'question_id', value: (r) => r.questionId },
  { name: 'conversations', value: (r) => r.conversations },
  { name: 'questions', value: (r) => r.questions },
  { name: 'questions_with_credits', value: (r) => r.questionsWithCredits },
  { name: 'credits_sum', value: (r) => r.creditsSum },
  { name: 'credits_mean', value: (r) => r.creditsMean },
  { name: 'credits_p90', value: (r) => r.creditsP90 },
  { name: 'credits_per_conversation', value: (r) => r.creditsPerConversation },
  { name: 'credits_per_1000_questions', value: (r) => r.creditsPer1000Questions },
  { name: 'at', value: (r) => r.at },
  { name: 'total_quota', value: (r) => r.totalQuota },
  { name: 'quota_limit', value: (r) => r.quotaLimit },
  { name: 'quota_remaining', value: (r) => r.quotaRemaining },
  { name: 'reset_time', value: (r) => r.resetTime },
  { name: 'quota_used_in_run', value: (r) => r.quotaUsedInRun },
  { name: 'credits_per_suite_run', value: (r) => r.creditsPerSuiteRun },
  { name: 'suite_run_basis', value: (r) => r.suiteRunBasis },
  { name: 'runs_left', value: (r) => r.runsLeft },
  { name: 'seconds_to_reset', value: (r) => r.secondsToReset },
  { name: 'time_to_reset', value: (r) => r.timeToReset },
  { name: 'note', value: (r) => r.note },
];
