/** One entry of `progress.skipped`, shaped as the platform sends it. */
export interface Skipped {
  reason: string;
  title: string;
  message: string;
  severity: 'info' | 'warn';
  suggested?: { title: string; queryExpression: string };
}

export function excludedArchive(repos: number): Skipped {
  return excluded('excluded-archive', repos, 'archived');
}

export function excludedForks(repos: number): Skipped {
  return excluded('repository-fork', repos, 'forked');
}

function excluded(reason: string, repos: number, kind: 'archived' | 'forked'): Skipped {
  const filter = kind === 'archived' ? 'archived:yes' : 'fork:yes';
  return {
    reason,
    title: `${repos} ${kind}`,
    message: `${repos} ${kind} repositories were excluded from the search. Add ${filter} to include them.`,
    severity: 'info',
    suggested: { title: `include ${kind}`, queryExpression: filter },
  };
}

/** The platform's suggestion: count:S with S = (limit + 1500) / 1000 * 1000 in integer division. */
export function matchLimit(limit: number): Skipped {
  return {
    reason: 'shard-match-limit',
    title: 'result limit hit',
    message: `Not all results have been returned due to hitting the match limit (${limit}).`,
    severity: 'info',
    suggested: { title: 'increase limit', queryExpression: `count:${Math.floor((limit + 1500) / 1000) * 1000}` },
  };
}

export function timeout(ms: number): Skipped {
  const doubled = `${Math.max(1, Math.ceil((2 * ms) / 1000))}s`;
  return {
    reason: 'shard-timeout',
    title: 'search timed out',
    message: `Not all results have been returned due to hitting the search timeout (${ms} ms).`,
    severity: 'warn',
    suggested: { title: 'increase timeout', queryExpression: `timeout:${doubled}` },
  };
}

export function displayLimit(display: number): Skipped {
  return {
    reason: 'display',
    title: 'display limit hit',
    message: `Only ${display} matches were sent, but the search found more. Raise the display parameter to see them.`,
    severity: 'info',
  };
}
