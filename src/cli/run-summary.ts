import { DEFAULT_TEXT_WIDTH, textTable, uncheckedLostCreates } from '../report/tables.js';
import { fillLines, wordsOf, wrapLine } from '../report/text-fit.js';
import type { KindTally } from '../model/tally.js';
import type { RunResult, TargetResult } from '../runner/run.js';
import { isFailure } from '../model/verdict.js';
import type { FailingItem } from '../store/failing-items.js';

const QUESTION_OUTCOMES = ['completed', 'error', 'canceled', 'timeout', 'client_error', 'skipped', 'pending', 'running'] as const;
const SEARCH_OUTCOMES = ['complete', 'limit_hit', 'error', 'truncated', 'http_error', 'skipped', 'pending', 'running'] as const;

/**
 * The text printed at the end of a run: questions and searches in tables of their own, one row per target,
 * counts by outcome (a failure the suite expected in a column of its own, as the progress line counts it),
 * credits ("not measured" where the API reports none), checks, stops and the totals.
 */
export function formatRunSummary(result: RunResult, dbPath: string, emulated: boolean, width = DEFAULT_TEXT_WIDTH): string {
  const targets = Object.entries(result.targets);
  const stops = targets
    .filter(([, t]) => t.stopped)
    .map(([name, t]) => `  ${name}: ${t.stopped}\n`)
    .join('');
  const unowned = targets
    .filter(([, t]) => t.unownedConversations > 0)
    .map(([name, t]) => `  ${name}: ${t.unownedConversations} conversation${t.unownedConversations === 1 ? '' : 's'} with this run's questions that no item owns (their credits are not counted)\n`)
    .join('');
  const unchecked = targets
    .filter(([, t]) => t.lostCreates.unchecked > 0)
    .map(([name, t]) => `  ${name}: ${uncheckedLostCreates(t.lostCreates)}\n`)
    .join('');
  return (
    `\nRun ${result.runId} ${result.status} in ${(result.wallMs / 1000).toFixed(1)} s${emulated ? ' (emulated instance)' : ''}; recorded in ${dbPath}\n` +
    kindTable('Questions', targets, (t) => t.questions, QUESTION_OUTCOMES, true, width) +
    kindTable('Searches', targets, (t) => t.searches, SEARCH_OUTCOMES, false, width) +
    (stops ? `\nStopped targets:\n${stops}` : '') +
    (unowned ? `\nConversations no item owns (a create given up reached the server after all; asked twice if its item asked again; docs/restarts.md):\n${unowned}` : '') +
    (unchecked ? `\nCreates given up and never looked for at the end (one that landed after all would go unseen; docs/restarts.md):\n${unchecked}` : '') +
    `\n${totals(targets.map(([, t]) => t))} Checks: ${result.expectations.passed} passed, ${result.expectations.failed} failed. Exit code ${result.exitCode}.\n`
  );
}

/** `Errors: 1 (+1 expected).`: the same count and words as the progress line. */
function totals(targets: TargetResult[]): string {
  let errors = 0;
  let expected = 0;
  for (const t of targets) {
    for (const k of [t.questions, t.searches]) {
      const kindExpected = sum(k.expected);
      expected += kindExpected;
      errors += sum(failureCounts(k)) - kindExpected;
    }
  }
  return `Errors: ${errors}${expected > 0 ? ` (+${expected} expected)` : ''}.`;
}

function failureCounts(k: KindTally): Record<string, number> {
  return Object.fromEntries(Object.entries(k.counts).filter(([outcome]) => isFailure(outcome)));
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

function kindTable(
  title: string,
  targets: Array<[string, TargetResult]>,
  kind: (t: TargetResult) => KindTally,
  outcomes: readonly string[],
  withCredits: boolean,
  width: number,
): string {
  const present = targets.filter(([, t]) => sum(kind(t).counts) > 0);
  if (present.length === 0) return '';
  // An outcome's column counts what the suite did not expect; `error (expected)` and the like count the rest.
  const columns = outcomes.flatMap((o) => [
    { head: o, value: (k: KindTally) => (k.counts[o] ?? 0) - (k.expected[o] ?? 0) },
    { head: `${o} (expected)`, value: (k: KindTally) => k.expected[o] ?? 0 },
  ]);
  const used = columns.filter((c) => present.some(([, t]) => c.value(kind(t)) > 0));
  const header = ['target', ...used.map((c) => c.head), ...(withCredits ? ['credits'] : []), 'checks ok', 'checks failed'];
  const rows = present.map(([name, t]) => {
    const k = kind(t);
    return [name, ...used.map((c) => String(c.value(k))), ...(withCredits ? [t.credits === null ? 'not measured' : String(t.credits)] : []), String(k.passed), String(k.failed)];
  });
  return `\n${title}\n${textTable({ headers: header, rows, align: header.map((_, i) => (i === 0 ? 'left' : 'right')) }, width)}`;
}


/** Failing items the run summary names; the rest are counted, with the command that shows them all. */
export const MAX_FAILING_LISTED = 10;

/**
 * The failing items (a failed check, or a failure the suite did not expect), up to MAX_FAILING_LISTED, each
 * with its first reason, and how to see them all; empty when none failed.
 */
export function formatFailingItems(failing: { items: readonly FailingItem[]; total: number }, runId: number, db: string, width = DEFAULT_TEXT_WIDTH): string {
  if (failing.total === 0) return '';
  const lines = failing.items.flatMap((f) => wrapLine(`  ${f.target}/${f.suiteItemId}#${f.repeat} (${f.outcome}): ${f.reason.length > 160 ? `${f.reason.slice(0, 159)}…` : f.reason}`, width, 2));
  const more = failing.total - failing.items.length;
  const command = `npx dsbench report ${runId} --db ${/^[\w./-]+$/.test(db) ? db : JSON.stringify(db)}`;
  // The command is one word: wrapped, it stays whole on a line, to copy.
  const words = [...wordsOf(more > 0 ? `… and ${more} more; all of them:` : 'details:'), command, ...wordsOf('(questions.csv and searches.csv have every reason)')];
  const all = fillLines(words, width - 2, width - 4).map((l, n) => `${n === 0 ? '  ' : '    '}${l}`);
  return `\nFailing items: ${failing.total}\n${lines.join('\n')}\n${all.join('\n')}\n`;
}
