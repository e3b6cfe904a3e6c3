import { linksIn, parseLink } from '../answer-links.js';
import { compilePattern } from '../config/pattern.js';
import type { Followup, QuestionExpect, SearchExpect, TurnExpect } from '../config/suite.js';
import { numberCheck } from './number-check.js';
import type { ExpectationResult, SearchRecord, TurnRecord } from '../model/item.js';

function quote(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}

/** Repositories a turn cites: its sources, or, where the API gives none (versioned), the answer's links. */
function citedRepositories(turn: TurnRecord): { repos: Set<string>; from: string } {
  if (turn.sources && turn.sources.length > 0) {
    const repos = new Set<string>();
    for (const s of turn.sources) {
      repos.add(s.label);
      repos.add(parseLink(s.link)?.repository ?? s.link.replace(/^\/+/, ''));
    }
    return { repos, from: 'sources' };
  }
  // Real answers link `https://host/r/github.com/org/repo@<rev>/-/blob/...` and other forms: the repository is `github.com/org/repo`.
  const repos = new Set(linksIn(turn.answer ?? '').map((l) => l.repository));
  return { repos, from: 'answer links (the API gave no sources)' };
}

function turnChecks(expect: TurnExpect, turn: TurnRecord, index: number): ExpectationResult[] {
  const results: ExpectationResult[] = [];
  const answer = turn.answer ?? '';
  const lower = answer.toLowerCase();
  const add = (name: string, passed: boolean, reason: string) => results.push({ name, passed, reason, turn: index });
  for (const text of expect.contains ?? []) {
    add('contains', lower.includes(text.toLowerCase()), `answer ${lower.includes(text.toLowerCase()) ? 'contains' : 'does not contain'} ${quote(text)}`);
  }
  for (const text of expect.notContains ?? []) {
    const found = lower.includes(text.toLowerCase());
    add('notContains', !found, `answer ${found ? 'contains' : 'does not contain'} ${quote(text)}`);
  }
  for (const pattern of expect.matches ?? []) {
    // The compiled form prints as /source/flags whether the suite wrote `x` or `/x/i`.
    const regex = compilePattern(pattern);
    const ok = regex.test(answer);
    add('matches', ok, `answer ${ok ? 'matches' : 'does not match'} ${String(regex)}`);
  }
  if (expect.sourcesInclude && expect.sourcesInclude.length > 0) {
    const { repos, from } = citedRepositories(turn);
    for (const repo of expect.sourcesInclude) {
      const ok = repos.has(repo);
      add('sourcesInclude', ok, `${repo} ${ok ? 'is' : 'is not'} among the ${from}${ok ? '' : ` (${[...repos].slice(0, 5).join(', ') || 'none'})`}`);
    }
  }
  if (expect.number !== undefined) {
    const { passed, reason } = numberCheck(expect.number, turn.answer, turn.state);
    add('number', passed, reason);
  }
  if (expect.state !== undefined) {
    add('state', turn.state === expect.state, `expected state ${expect.state}, got ${turn.state}`);
  }
  if (expect.errorCode !== undefined) {
    const actual = turn.error?.code ?? 'none';
    add('errorCode', actual === expect.errorCode, `expected error ${expect.errorCode}, got ${actual}${turn.error ? ` (${turn.error.rawCode})` : ''}`);
  }
  return results;
}

/**
 * Checks of a conversation: each follow-up's own checks on its turn, the question's checks on the last
 * turn asked, and the totals. A conversation that stopped before its last follow-up fails a `turns`
 * check unless an error or timeout was what the suite expected.
 */
export function evaluateQuestion(expect: QuestionExpect, followups: readonly Followup[], turns: readonly TurnRecord[]): ExpectationResult[] {
  const results: ExpectationResult[] = [];
  turns.forEach((turn, i) => {
    const own = i > 0 ? followups[i - 1]?.expect : undefined;
    if (own) results.push(...turnChecks(own, turn, i));
  });
  const last = turns[turns.length - 1];
  if (!last) return [{ name: 'asked', passed: false, reason: 'the question was never asked' }];
  results.push(...turnChecks(expect, last, turns.length - 1));
  const planned = followups.length + 1;
  const expectsFailure = expect.state !== undefined && expect.state !== 'completed';
  if (turns.length < planned && !expectsFailure && expect.errorCode === undefined) {
    results.push({ name: 'turns', passed: false, reason: `only ${turns.length} of ${planned} turns were asked: turn ${turns.length - 1} ended ${last.state}` });
  }
  const unmeasured = (what: string) => `not measured: the API reported no ${what} (the versioned API has no stats)`;
  const limit = (name: string, field: 'credits' | 'totalTokens', what: string, most: number | undefined) => {
    if (most === undefined) return;
    const reported = turns.flatMap((t) => (t.stats?.[field] === undefined ? [] : [t.stats[field]]));
    const total = reported.reduce((sum, value) => sum + value, 0);
    const over = reported.length < turns.length ? ` (reported for ${reported.length} of ${turns.length} turns)` : '';
    results.push(
      reported.length === 0
        ? { name, passed: false, reason: unmeasured(what) }
        : { name, passed: total <= most, reason: `${total} ${what}${over}, at most ${most} expected` },
    );
  };
  limit('maxCredits', 'credits', 'credits', expect.maxCredits);
  limit('maxTotalTokens', 'totalTokens', 'tokens', expect.maxTotalTokens);
  if (expect.maxSeconds !== undefined) {
    const measured = turns.filter((t) => t.serverMs !== undefined);
    const seconds = measured.reduce((sum, t) => sum + (t.serverMs ?? 0), 0) / 1000;
    results.push(
      measured.length < turns.length
        ? { name: 'maxSeconds', passed: false, reason: 'not measured: the server gave no latency for every turn' }
        : { name: 'maxSeconds', passed: seconds <= expect.maxSeconds, reason: `${seconds.toFixed(1)} s on the server, at most ${expect.maxSeconds} s expected` },
    );
  }
  return results;
}

/** Checks of a search. Counts use the server's matchCount, or the client's own count where the server gave none. */
export function evaluateSearch(expect: SearchExpect, search: SearchRecord): ExpectationResult[] {
  const results: ExpectationResult[] = [];
  const count = search.matchCount ?? search.counted;
  const source = search.matchCount !== undefined ? 'server' : 'client';
  if (expect.exhaustive !== undefined) {
    const exhaustive = search.verdict === 'complete';
    results.push({
      name: 'exhaustive',
      passed: exhaustive === expect.exhaustive,
      reason: `search was ${exhaustive ? '' : 'not '}exhaustive (verdict ${search.verdict})`,
    });
  }
  if (expect.count !== undefined) results.push({ name: 'count', passed: count === expect.count, reason: `${count} matches (${source}), ${expect.count} expected` });
  if (expect.minCount !== undefined) results.push({ name: 'minCount', passed: count >= expect.minCount, reason: `${count} matches (${source}), at least ${expect.minCount} expected` });
  if (expect.maxCount !== undefined) results.push({ name: 'maxCount', passed: count <= expect.maxCount, reason: `${count} matches (${source}), at most ${expect.maxCount} expected` });
  return results;
}
