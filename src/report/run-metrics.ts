import type Database from 'better-sqlite3';
import { failureClass, type VerdictOutcome } from '../runner/verdict.js';
import { gradingSummary, judgeScores } from '../store/grade-queries.js';
import { type ItemVerdictRow, iterateItemVerdicts, iterateSearches, iterateTurnMetrics, runTargets } from '../store/queries.js';
import { searchCount } from './summary.js';

/*
 * A run's aggregate metrics, per target and for the whole run, read in one pass over its turns, items,
 * searches and grades. Thresholds are judged on them and the Pushgateway export sends them: both read
 * these figures, so a limit and a dashboard never disagree.
 */

export interface ItemTally {
  /** Every item of the scope, finished or not. */
  items: number;
  /** Items that ran to their end. */
  finished: number;
  /** Finished items that ended in a failure the suite did not expect. */
  errors: number;
  /** Finished items that ended in a failure the suite expected (all their checks held). */
  expectedErrors: number;
  /** Items with at least one check, and of those the ones that passed every check. */
  checked: number;
  passed: number;
}

export interface ScopeMetrics {
  /** The target, or null for the whole run. */
  target: string | null;
  items: ItemTally;
  turns: number;
  /** Per question turn, where recorded. */
  turnWallMs: number[];
  turnServerMs: number[];
  /** Per conversation, where some turn reported it (the versioned API reports neither). */
  conversationCredits: number[];
  conversationTokens: number[];
  searches: number;
  searchWallMs: number[];
  searchMatches: number;
  judgeScores: number[];
  citations: { valid: number; invalid: number };
}

function emptyScope(target: string | null): ScopeMetrics {
  return {
    target,
    items: { items: 0, finished: 0, errors: 0, expectedErrors: 0, checked: 0, passed: 0 },
    turns: 0,
    turnWallMs: [],
    turnServerMs: [],
    conversationCredits: [],
    conversationTokens: [],
    searches: 0,
    searchWallMs: [],
    searchMatches: 0,
    judgeScores: [],
    citations: { valid: 0, invalid: 0 },
  };
}

/** Adds an item to a tally: whether it finished, failed (expected or not) and passed its checks. */
export function tallyItem(tally: ItemTally, item: Pick<ItemVerdictRow, 'status' | 'outcome' | 'expectations' | 'expectPassed'>): void {
  tally.items++;
  if (item.status === 'done') tally.finished++;
  const failure = failureClass((item.outcome ?? item.status) as VerdictOutcome, {
    passed: item.expectPassed === 1 ? item.expectations : 0,
    failed: item.expectPassed === 0 ? 1 : 0,
  });
  if (item.status === 'done' && failure === 'error') tally.errors++;
  if (item.status === 'done' && failure === 'expected') tally.expectedErrors++;
  if (item.expectPassed !== null) {
    tally.checked++;
    tally.passed += item.expectPassed;
  }
}

/** Sums per conversation, keyed by item, kept only where some turn reported a value. */
class PerConversation {
  private readonly sums = new Map<string, { target: string; credits: number | null; tokens: number | null }>();

  add(target: string, item: string, credits: number | null, tokens: number | null): void {
    const entry = this.sums.get(item) ?? { target, credits: null, tokens: null };
    if (credits !== null) entry.credits = (entry.credits ?? 0) + credits;
    if (tokens !== null) entry.tokens = (entry.tokens ?? 0) + tokens;
    this.sums.set(item, entry);
  }

  into(scopes: (target: string) => ScopeMetrics[]): void {
    for (const { target, credits, tokens } of this.sums.values()) {
      for (const s of scopes(target)) {
        if (credits !== null) s.conversationCredits.push(credits);
        if (tokens !== null) s.conversationTokens.push(tokens);
      }
    }
  }
}

/** The whole run first, then one scope per target in the run's order. */
export function collectRunMetrics(db: Database.Database, runId: number): ScopeMetrics[] {
  const all = emptyScope(null);
  const byTarget = new Map(runTargets(db, runId).map((t) => [t.name, emptyScope(t.name)]));
  const scopes = (target: string): ScopeMetrics[] => {
    let scope = byTarget.get(target);
    if (!scope) byTarget.set(target, (scope = emptyScope(target)));
    return [all, scope];
  };
  const conversations = new PerConversation();
  for (const t of iterateTurnMetrics(db, runId)) {
    for (const s of scopes(t.target)) {
      s.turns++;
      if (t.wallMs !== null) s.turnWallMs.push(t.wallMs);
      if (t.serverMs !== null) s.turnServerMs.push(t.serverMs);
    }
    conversations.add(t.target, `${t.target}/${t.suiteItemId}#${t.repeat}`, t.credits, t.totalTokens);
  }
  conversations.into(scopes);
  for (const item of iterateItemVerdicts(db, runId)) for (const s of scopes(item.target)) tallyItem(s.items, item);
  for (const search of iterateSearches(db, runId)) {
    for (const s of scopes(search.target)) {
      s.searches++;
      s.searchWallMs.push(search.wallMs);
      s.searchMatches += searchCount(search);
    }
  }
  for (const { target, score } of judgeScores(db, runId)) for (const s of scopes(target)) s.judgeScores.push(score);
  for (const g of gradingSummary(db, runId)) {
    for (const s of scopes(g.target)) {
      s.citations.valid += g.citations.valid;
      s.citations.invalid += g.citations.invalid;
    }
  }
  return [all, ...byTarget.values()];
}
