/** One entry of `progress.skipped`, shaped and worded as the platform's templates. */
export interface Skipped {
  reason: string;
  title: string;
  message: string;
  severity: 'info' | 'warn';
  suggested?: { title: string; queryExpression: string };
}

/** What a run skipped so far; `skippedList` orders it as the server does. */
export interface SkippedState {
  /** The limit that was hit, if one was. */
  limitHit?: number;
  /** Names of the repositories a timeout left unsearched. */
  timedOut: string[];
  excludedForks: number;
  excludedArchived: number;
  /** The display limit, when the run found more than it displayed. */
  displayLimit?: number;
}

/** The server's order: limits, timeouts, forks, archived, display. */
export function skippedList(state: SkippedState): Skipped[] {
  const list: Skipped[] = [];
  if (state.limitHit !== undefined) list.push(matchLimit(state.limitHit));
  if (state.timedOut.length > 0) list.push(timedOut(state.timedOut));
  if (state.excludedForks > 0) list.push(excludedForks(state.excludedForks));
  if (state.excludedArchived > 0) list.push(excludedArchive(state.excludedArchived));
  if (state.displayLimit !== undefined) list.push(displayLimit(state.displayLimit));
  return list;
}

/** The server's counts in titles: 999, 1,234, 12k. */
export function amount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${Math.floor(n / 1000)},${String(n % 1000).padStart(3, '0')}`;
  return `${Math.floor(n / 1000)}k`;
}

export function excludedArchive(repos: number): Skipped {
  return {
    reason: 'excluded-archive',
    title: `${amount(repos)} archived`,
    message: 'By default we exclude archived repositories. Include them with `archived:yes` in your query.',
    severity: 'info',
    suggested: { title: 'include archived', queryExpression: 'archived:yes' },
  };
}

export function excludedForks(repos: number): Skipped {
  return {
    reason: 'repository-fork',
    title: `${amount(repos)} forked`,
    message: 'By default we exclude forked repositories. Include them with `fork:yes` in your query.',
    severity: 'info',
    suggested: { title: 'include forked', queryExpression: 'fork:yes' },
  };
}

/** The platform's suggestion: count:S with S = (limit + 1500) / 1000 * 1000 in integer division. */
export function matchLimit(limit: number): Skipped {
  return {
    reason: 'shard-match-limit',
    title: 'result limit hit',
    message:
      'Not all results have been returned due to hitting a match limit. Sourcegraph has limits for the number of results returned from a line, document and repository.',
    severity: 'info',
    suggested: { title: 'increase limit', queryExpression: `count:${Math.floor((limit + 1500) / 1000) * 1000}` },
  };
}

/** At most this many repository names are listed in a message. */
const SAMPLE = 10;

/** The server lists the repositories a timeout left out; one is named inline (with its double space). */
export function timedOut(repos: string[]): Skipped {
  const base = { reason: 'shard-timeout', title: `${amount(repos.length)} timed out`, severity: 'warn' as const };
  if (repos.length === 1) {
    return {
      ...base,
      message: `\`${repos[0]}\` could not be searched in time. Try searching again or reducing the scope of your query with \`repo:\`,  \`context:\` or other filters.`,
    };
  }
  const names = repos.slice(0, SAMPLE).map((name) => `\n* \`${name}\``);
  return {
    ...base,
    message:
      `${amount(repos.length)} repositories could not be searched in time. Try searching again or reducing the scope of your query with \`repo:\`, \`context:\` or other filters.` +
      names.join('') +
      (repos.length > SAMPLE ? '\n* ...' : ''),
  };
}

export function displayLimit(display: number): Skipped {
  return {
    reason: 'display',
    title: 'display limit hit',
    message: `We only display ${display} ${display === 1 ? 'result' : 'results'} even if your search returned more results. To see all results, use our CLI.`,
    severity: 'info',
  };
}
