import type { Block, Inline } from '../document.js';
import { fmtInt, plural } from '../tables.js';
import { type Listed, pValue } from './aggregate.js';
import type { CompareResult } from './compare-result.js';
import type { GateResult } from './gates.js';
import type { CompareRow } from './pairs.js';

// The verdict for people: what failed, at what false-alarm rate, which questions drive it, what to do next.

const SHOWN = 20;

/**
 * A gate's result in every output (md, text, html, JUnit): "passed", "passed, near the limit (p = 0.061)",
 * "FAILED", for a gate that cannot fail "would fail" or "would pass", and for one with nothing to judge why
 * ("not judged: too few pairs", "not measured"), never "passed".
 */
export function gateOutcome(g: GateResult): string {
  if (g.notJudged !== undefined) return g.notJudged;
  if (g.failed) return g.enabled ? 'FAILED' : 'would fail';
  if (!g.enabled) return 'would pass';
  if (g.enabled && g.near && g.p !== undefined && g.p !== null) return `passed, near the limit (p = ${pValue(g.p)})`;
  return 'passed';
}

const percent = (x: number): string => `${Number((x * 100).toPrecision(2))}%`;

/** The one false-alarm rate of the tests that can fail the comparison, and its split. */
export function falseAlarmLine(r: CompareResult): string {
  const tests = r.summary.gates.filter((g) => g.enabled && g.level !== undefined);
  if (tests.length === 0) return 'No statistical gate is on: only the event gates chosen with --fail-on can fail this comparison.';
  const total = 1 - r.bootstrap.confidence;
  return (
    `The ${tests.length} test gates together go red on at most ${percent(total)} of nights where nothing changed ` +
    `(weighted Holm, one-sided, before a failed gate passes its level on: ${tests.map((g) => `${g.name} ${percent(r.summary.levels[g.name] ?? g.level!)}`).join(', ')}; docs/statistics.md).`
  );
}

interface QuestionGroup {
  name: string;
  repeats: string[];
  describe: string;
}

/** Rows grouped by question (target, kind and id), in the order they came: a question once, with its repeats. */
export function byQuestion(rows: readonly CompareRow[], withTarget: boolean, describe: (r: CompareRow) => string): QuestionGroup[] {
  const groups = new Map<string, QuestionGroup>();
  for (const r of rows) {
    const target = withTarget ? (r.targetBaseline ?? r.targetCandidate) : null;
    const name = `${r.kind === 'search' ? 'search ' : ''}${target ? `${target}/` : ''}${r.itemId}`;
    const g = groups.get(name) ?? { name, repeats: [], describe: describe(r) };
    g.repeats.push(`#${r.repeat}${r.turn === null ? '' : ` turn ${r.turn}`}`);
    const d = describe(r);
    if (!g.describe.split('; ').includes(d)) g.describe += `; ${d}`;
    groups.set(name, g);
  }
  return [...groups.values()];
}

/** A list of items by question: "`q07` #0, #1: pass → fail". */
export function listByQuestion(title: string, listed: Listed, withTarget: boolean, describe: (r: CompareRow) => string): Block[] {
  if (listed.count === 0) return [];
  const groups = byQuestion(listed.rows, withTarget, describe);
  const shown = groups.slice(0, SHOWN);
  const more = listed.count - shown.reduce((a, g) => a + g.repeats.length, 0);
  return [
    { kind: 'heading', level: 3, text: [`${title} (${fmtInt(listed.count)} items${listed.rows.length === listed.count ? `, ${plural(groups.length, 'question')}` : ''})`] },
    { kind: 'list', items: shown.map((g): Inline[] => [{ code: g.name }, ` ${g.repeats.join(', ')}: ${g.describe}`]) },
    ...(more > 0 ? ([{ kind: 'para', text: [`… and ${fmtInt(more)} more items in compare.csv.`] }] as Block[]) : []),
  ];
}

/** The questions that drive the failed rate gates, by id, for the next step's command. */
function drivingQuestions(r: CompareResult): string[] {
  const s = r.summary;
  const failed = new Set(s.gates.filter((g) => g.enabled && g.failed).map((g) => g.name));
  const rows = [...(failed.has('new-errors') || failed.has('any-new-error') ? s.newErrors.rows : []), ...(failed.has('pass-rate') || failed.has('pass-k') || failed.has('verdict-changes') ? s.newFailures.rows : [])];
  return [...new Set(rows.map((row) => row.itemId))];
}

/** What to run or check next, after the verdict. */
export function nextStep(r: CompareResult): Inline[] {
  const s = r.summary;
  const failed = s.gates.filter((g) => g.enabled && g.failed);
  const near = s.gates.filter((g) => g.enabled && !g.failed && g.near);
  const history = `dsbench report --history 7 --db ${r.candidate.db || 'results/dsbench.db'}`;
  if (failed.length === 0) {
    if (near.length === 0) return ['Next: nothing to do; the changes above are within what noise explains.'];
    return [`Next: nothing failed, but ${near.map((g) => g.name).join(', ')} passed near the limit; watch the next nights with `, { code: history }, '.'];
  }
  const ids = drivingQuestions(r).slice(0, 10);
  const parts: Inline[] = ['Next: read the questions listed below side by side in compare.csv'];
  if (ids.length > 0) {
    const suite = r.candidate.run.suitePath || '<suite file>';
    parts.push('; to see whether they fail again, ask them again with more repeats on the same target: ', { code: `dsbench run ${suite} ${ids.map((id) => `--only ${id}`).join(' ')} --repeats 5` });
    parts.push(' (that run tells you about those questions; it is not a second test of the whole suite)');
  }
  if (failed.some((g) => g.name.endsWith('regression'))) parts.push('; for a metric, compare the nights in ', { code: history }, ' (load and version of the instance)');
  parts.push('.');
  return parts;
}
