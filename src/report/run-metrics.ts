import type Database from 'better-sqlite3';
import { runQuality } from './quality.js';
import { gradingSummary, judgeScores } from '../store/grade-queries.js';
import { iterateItemVerdicts, iterateSearches, iterateTurnMetrics, runTargets, type TurnMetricRow } from '../store/queries.js';
import { truncationOf } from '../model/truncation.js';
import { countItem, FAILED_STATES, itemCounts, type ItemCounts, searchCount } from './summary.js';

/*
 * A run's aggregate metrics, per target and for the whole run, read in one pass over its turns, items,
 * searches and grades. Thresholds are judged on them and the Pushgateway export sends them: both read
 * these figures, so a limit and a dashboard never disagree.
 */

export interface ScopeMetrics {
  /** The target, or null for the whole run. */
  target: string | null;
  /** Counted as every report counts them (summary.ts countItem). */
  items: ItemCounts;
  turns: number;
  /** Per question turn, where recorded. */
  turnWallMs: number[];
  turnServerMs: number[];
  /** Per conversation, where some turn reported it (the versioned API reports neither). */
  conversationCredits: number[];
  conversationTokens: number[];
  searches: number;
  searchWallMs: number[];
  /** Per search that reported it: the server's durationMs. */
  searchServerMs: number[];
  searchMatches: number;
  judgeScores: number[];
  citations: { valid: number; invalid: number };
  /** Question turns stopped by the output limit, with some answer text and with none (model/truncation.ts). */
  truncated: number;
  truncatedNoAnswer: number;
  /** Question turns that ended in a failure yet reported credits (the legacy API): what failures cost. */
  billedFailures: { turns: number; credits: number };
  /** pass^k over questions (docs/statistics.md); for the whole run only when it has one target. */
  passHatK: { k: number; value: number } | null;
}

function emptyScope(target: string | null): ScopeMetrics {
  return {
    target,
    items: itemCounts(),
    turns: 0,
    turnWallMs: [],
    turnServerMs: [],
    conversationCredits: [],
    conversationTokens: [],
    searches: 0,
    searchWallMs: [],
    searchServerMs: [],
    searchMatches: 0,
    judgeScores: [],
    citations: { valid: 0, invalid: 0 },
    truncated: 0,
    truncatedNoAnswer: 0,
    billedFailures: { turns: 0, credits: 0 },
    passHatK: null,
  };
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

/** The output-limit outcomes and billed failures of one turn. */
function countTurnOutcome(s: ScopeMetrics, t: Pick<TurnMetricRow, 'state' | 'errorCode' | 'credits'>): void {
  const truncation = truncationOf(t.errorCode);
  if (truncation === 'truncated') s.truncated++;
  else if (truncation === 'truncated-no-answer') s.truncatedNoAnswer++;
  if (FAILED_STATES.has(t.state) && t.credits !== null && t.credits > 0) {
    s.billedFailures.turns++;
    s.billedFailures.credits += t.credits;
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
      countTurnOutcome(s, t);
    }
    conversations.add(t.target, `${t.target}/${t.suiteItemId}#${t.repeat}`, t.credits, t.totalTokens);
  }
  conversations.into(scopes);
  for (const item of iterateItemVerdicts(db, runId)) for (const s of scopes(item.target)) countItem(s.items, item);
  for (const search of iterateSearches(db, runId)) {
    for (const s of scopes(search.target)) {
      s.searches++;
      s.searchWallMs.push(search.wallMs);
      if (search.durationMs !== null) s.searchServerMs.push(search.durationMs);
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
  const quality = runQuality(db, runId);
  for (const t of quality.targets) {
    const scope = byTarget.get(t.target);
    if (scope && t.passHatK.value !== null) scope.passHatK = { k: t.k, value: t.passHatK.value };
  }
  if (byTarget.size === 1) all.passHatK = [...byTarget.values()][0]!.passHatK;
  return [all, ...byTarget.values()];
}
