import type { Block, Inline } from '../document.js';
import { fmtInt, fmtNum, fmtPct, fmtSigned, fmtSignedPct, plural } from '../tables.js';
import { type MetricResult, pValue } from './aggregate.js';
import { runVersionsText } from '../../store/queries.js';
import type { CompareResult, Side } from './compare-result.js';
import type { CompareRow } from './pairs.js';
import { falseAlarmLine, gateOutcome, listByQuestion, nextStep } from './verdict.js';

function sideName(s: Side): Inline[] {
  if (s.window) return [pooledText(s.window), ...(s.target ? [' target ', { code: s.target }] : []), ...(s.db ? [' in ', { code: s.db }] : [])];
  return [`run ${s.run.id}`, ...(s.run.label ? [' ', { code: s.run.label }] : []), ...(s.target ? [' target ', { code: s.target }] : []), ...(s.db ? [' in ', { code: s.db }] : [])];
}

/** "window:5, 3 runs pooled (12, 11, 9): fewer than the 5 asked for, all there are". */
export function pooledText(w: NonNullable<Side['window']>): string {
  const ids = w.runs.map((r) => r.id).join(', ');
  const short = w.runs.length < w.requested ? `: fewer than the ${w.requested} asked for, all the passing runs there are` : '';
  return `window:${w.requested}, ${w.runs.length} run${w.runs.length === 1 ? '' : 's'} pooled (${ids})${short}`;
}

/** Said under the metrics when a dsbench emulator timed the searches compared. */
export const EMULATED_SEARCH_TIME =
  "A dsbench emulator answered these searches: it searches its corpus in real time on its own machine, so their durations follow that machine's load (other work, busy loops), not a service's speed (docs/emulator.md).";

/** The note under the metrics when searches were compared and an emulator answered a side's. */
export function emulatedSearchNote(r: Pick<CompareResult, 'baseline' | 'candidate' | 'summary'>): string | undefined {
  const pairs = r.summary.metrics.find((m) => m.metric === 'search_latency')?.n ?? 0;
  return pairs > 0 && (r.baseline.servedByEmulator || r.candidate.servedByEmulator) ? EMULATED_SEARCH_TIME : undefined;
}

/** `search latency (server)`: a latency names the clock its pairs were timed by, with counts when they mix. */
export function metricName(m: Pick<MetricResult, 'metric' | 'clock'>): string {
  const name = m.metric.replace('_', ' ');
  const c = m.clock;
  if (c === null || c.server + c.wall === 0) return name;
  if (c.wall === 0) return `${name} (server)`;
  if (c.server === 0) return `${name} (wall)`;
  return `${name} (server ${fmtInt(c.server)}, wall ${fmtInt(c.wall)})`;
}

function metricValue(m: MetricResult, v: number | null): string {
  return m.unit === 'ms' ? (v === null ? '–' : `${(v / 1000).toFixed(2)} s`) : fmtNum(v, 2);
}

function metricDelta(m: MetricResult, v: number | null): string {
  return m.unit === 'ms' ? (v === null ? '–' : `${v > 0 ? '+' : ''}${(v / 1000).toFixed(2)} s`) : fmtSigned(v, 2);
}

/** `baseline 6.9.2, candidate 7.0.1`: the instance's product version on each side, as recorded at each run's start. */
export function versionsLine(r: Pick<CompareResult, 'baseline' | 'candidate'>): string {
  const b = runVersionsText(r.baseline.productVersions);
  const c = runVersionsText(r.candidate.productVersions);
  return `baseline ${b}, candidate ${c}${b !== c ? ' (changed)' : ''}`;
}

/** Items edited under the same id: listed, and said whether the gates judged them. */
function editedBlocks(r: CompareResult): Block[] {
  const e = r.summary.edited;
  if (e.count === 0) return [];
  const how = e.inGates
    ? 'judged by the gates as any other item (--include-edited)'
    : 'their text, follow-ups or expectations (a search\'s query) changed, so they are shown and judged by no gate; --include-edited judges them';
  return [
    { kind: 'para', text: [`Edited under the same id: ${fmtInt(e.count)} items, ${how}.`] },
    ...listByQuestion('Edited items', e, r.byTarget, () => 'edited'),
  ];
}

/** Rates and scores, each with its interval over questions and its test (docs/statistics.md). */
function outcomeBlocks(r: CompareResult): Block[] {
  const o = r.summary.outcomes;
  const level = `${Math.round(r.bootstrap.confidence * 100)}%`;
  const pts = (x: number | null): string => (x === null ? '–' : fmtSigned(x * 100, 1));
  const interval = (low: number | null, high: number | null): string => (low === null ? '–' : `${pts(low)} … ${pts(high)}`);
  const rows: string[][] = [
    ['error rate', fmtInt(o.errorRate.n), fmtInt(o.errorRate.clusters), fmtPct(o.errorRate.baseline), fmtPct(o.errorRate.candidate), pts(o.errorRate.change), interval(o.errorRate.low, o.errorRate.high), `${pValue(o.errorRate.test.pUpper)} (rise)`],
    ...(['truncated', 'truncated-no-answer'] as const).map((name) => {
      const r = name === 'truncated' ? o.truncatedRate : o.truncatedNoAnswerRate;
      return [`${name} rate`, fmtInt(r.n), fmtInt(r.clusters), fmtPct(r.baseline), fmtPct(r.candidate), pts(r.change), interval(r.low, r.high), `${pValue(r.test.pUpper)} (rise)`];
    }),
    ['pass rate', fmtInt(o.passRate.n), fmtInt(o.passRate.clusters), fmtPct(o.passRate.baseline), fmtPct(o.passRate.candidate), pts(o.passRate.change), interval(o.passRate.low, o.passRate.high), `${pValue(o.passRate.test.pLower)} (drop)`],
    [`pass^${o.passHatK.k}`, '–', fmtInt(o.passHatK.questions), fmtPct(o.passHatK.baseline), fmtPct(o.passHatK.candidate), pts(o.passHatK.change), '–', `${pValue(o.passHatK.test.pLower)} (drop)`],
  ];
  if (o.judgeScore.n > 0) {
    const j = o.judgeScore;
    rows.push(['judge score', fmtInt(j.n), fmtInt(j.clusters), fmtNum(j.baseline, 3), fmtNum(j.candidate, 3), fmtSigned(j.change, 3), j.low === null ? '–' : `${fmtSigned(j.low, 3)} … ${fmtSigned(j.high, 3)}`, `${pValue(j.test.pLower)} (drop)`]);
  }
  if (o.citationValidity.n > 0) {
    const c = o.citationValidity;
    rows.push(['citation validity', '–', fmtInt(c.clusters), fmtPct(c.baseline), fmtPct(c.candidate), pts(c.change), interval(c.low, c.high), `${pValue(c.test.pLower)} (drop)`]);
  }
  const blocks: Block[] = [
    {
      kind: 'para',
      text: [
        `Outcomes, paired by item: the error rate counts errors the checks did not expect; the pass rate counts items that ended without such an error in both runs. Intervals (${level}) resample questions; p-values are one-sided sign-flip tests over questions (exact McNemar when each question has one item). Changes in points.`,
      ],
    },
    {
      kind: 'table',
      table: {
        headers: ['outcome', 'items', 'questions', 'baseline', 'candidate', 'change', `${level} interval`, 'p'],
        align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
        rows,
      },
    },
  ];
  if (o.quarantined.clusters > 0) {
    blocks.push({ kind: 'para', text: [`Quarantined (tag `, { code: 'quarantine' }, `; shown, judged by no gate): ${o.quarantined.clusters === 1 ? '1 question or search' : `${fmtInt(o.quarantined.clusters)} questions or searches`}, ${plural(o.quarantined.items, 'item')}: ${o.quarantined.ids.join(', ')}.`] });
  }
  return blocks;
}

const JUDGEMENT_MARK: Record<string, string> = { regressed: 'REGRESSED', improved: 'improved', unchanged: 'unchanged', 'too few pairs': 'too few pairs' };

/** The comparison for people: verdict first, then metrics, then the items to look at. */
export function compareDocument(r: CompareResult): Block[] {
  return [...headBlocks(r), ...metricBlocks(r), ...gateBlocks(r), ...changeLists(r), { kind: 'heading', level: 3, text: ['Files'] }, { kind: 'list', items: r.files.map((f): Inline[] => [{ code: f }]) }];
}

/** The second look a red or suspect verdict names (gates.ts `verdictLine`). */
const CONFIRM_COMMAND = /(dsbench confirm \S+ --baseline \S+)/;

/** The verdict, the sides, what was paired and what to do next. */
function headBlocks(r: CompareResult): Block[] {
  const s = r.summary;
  const blocks: Block[] = [];
  blocks.push({ kind: 'heading', level: 1, text: [`dsbench compare: ${s.failed ? 'FAILED' : r.nothingCompared ? 'NOTHING TO JUDGE' : r.verdict === 'suspect' ? 'SUSPECT' : 'passed'}`] });
  blocks.push({ kind: 'para', text: [r.verdictLine], markdownOnly: true });
  // On a terminal the command to confirm is one word, so a narrow terminal does not wrap it in two.
  blocks.push({ kind: 'para', text: r.verdictLine.split(CONFIRM_COMMAND).map((part, i): Inline => (i % 2 === 1 ? { code: part } : part)), textOnly: true });
  blocks.push({ kind: 'list', items: [['Baseline: ', ...sideName(r.baseline)], ['Candidate: ', ...sideName(r.candidate)], [`Product version: ${versionsLine(r)}`]] });
  if (r.baseline.run.suiteName !== r.candidate.run.suiteName) {
    blocks.push({ kind: 'callout', text: ['The runs are of different suites (', { code: r.baseline.run.suiteName }, ' and ', { code: r.candidate.run.suiteName }, '): only items with the same ids are paired.'] });
  } else if (r.baseline.run.suiteHash !== r.candidate.run.suiteHash) {
    blocks.push({ kind: 'para', text: ['The suite file changed between the runs (different hashes); items are paired by id.'] });
  }
  if (r.baseline.window) {
    blocks.push({ kind: 'para', text: ['The baseline pools runs ', r.baseline.window.runs.map((run) => run.id).join(', '), ': each question carries all its repeats over them, and intervals resample questions.'] });
  }
  for (const side of [r.baseline, r.candidate]) {
    if (side.run.status === 'running') blocks.push({ kind: 'callout', text: [`Run ${side.run.id} is still running: its unfinished items are listed as unpaired or in progress.`] });
  }
  if (r.nothingCompared) blocks.push({ kind: 'callout', text: [`${r.nothingCompared[0]!.toUpperCase()}${r.nothingCompared.slice(1)}`] });
  const failedGates = s.gates.filter((g) => g.enabled && g.failed);
  if (failedGates.length > 0) {
    blocks.push({ kind: 'callout', text: [`Failed: ${failedGates.map((g) => `${g.name} (${g.detail})`).join('; ')}.`] });
  }
  blocks.push({ kind: 'para', text: [falseAlarmLine(r)] }, { kind: 'para', text: nextStep(r) });
  blocks.push({
    kind: 'para',
    text: [
      `Paired ${fmtInt(s.questions.paired)} question turns and ${fmtInt(s.searches.paired)} searches by `,
      { code: r.byTarget ? '(target, item id, repeat, turn)' : '(item id, repeat, turn)' },
      `; only in the baseline: ${fmtInt(s.questions.baselineOnly + s.searches.baselineOnly)}, only in the candidate: ${fmtInt(s.questions.candidateOnly + s.searches.candidateOnly)}.`,
    ],
  });
  blocks.push(...editedBlocks(r));
  return blocks;
}

/** The metrics' median changes with their intervals, then the outcomes. */
function metricBlocks(r: CompareResult): Block[] {
  const s = r.summary;
  const blocks: Block[] = [];
  blocks.push({ kind: 'heading', level: 2, text: ['Metrics'] });
  blocks.push({
    kind: 'para',
    text: [
      `Median change (candidate − baseline; relative: the median ratio of a pair's values, or the ratio of the medians when a value is 0) over pairs where both ended well, with a ${Math.round(r.bootstrap.confidence * 100)}% bootstrap interval that resamples questions with all their repeats and turns (${fmtInt(r.bootstrap.resamples)} resamples, seed ${r.bootstrap.seed}). A metric regressed when the whole interval of its relative change is above the threshold and its bound at the gate's level above 0; "detectable" is the smallest increase it would call regressed 80% of the time. A latency names its clock: (server) is the server's own time (a question's server time, a search's durationMs), (wall) dsbench's from sending the request to seeing the end, used for a pair where a side lacks the server's.`,
    ],
  });
  blocks.push({
    kind: 'table',
    table: {
      headers: ['metric', 'pairs', 'questions', 'baseline median', 'candidate median', 'median Δ', 'Δ interval', 'relative Δ', 'relative interval', 'threshold', 'detectable', 'verdict'],
      align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
      rows: s.metrics.map((m) => [
        metricName(m),
        fmtInt(m.n),
        fmtInt(m.clusters),
        metricValue(m, m.baselineMedian),
        metricValue(m, m.candidateMedian),
        metricDelta(m, m.delta),
        m.deltaLow === null ? '–' : `${metricDelta(m, m.deltaLow)} … ${metricDelta(m, m.deltaHigh)}`,
        fmtSignedPct(m.relative),
        m.relativeLow === null ? '–' : `${fmtSignedPct(m.relativeLow)} … ${fmtSignedPct(m.relativeHigh)}`,
        m.threshold === null ? 'off' : `+${fmtPct(m.threshold)}`,
        m.detectable === null ? '–' : `+${fmtPct(m.detectable)}`,
        m.measured === 0 && m.n === 0 ? 'not measured' : (JUDGEMENT_MARK[m.judgement] ?? m.judgement),
      ]),
    },
  });
  const note = emulatedSearchNote(r);
  if (note !== undefined) blocks.push({ kind: 'para', text: [note] });
  const pr = s.passRate;
  blocks.push(...outcomeBlocks(r));
  blocks.push({
    kind: 'list',
    items: [
      [
        'Expectation pass rate, errors included: ',
        pr.change === null ? 'no item has checks on both sides' : `${fmtPct(pr.baseline)} → ${fmtPct(pr.candidate)} (${fmtSigned(pr.change * 100, 1)} points) over ${fmtInt(pr.items)} items`,
      ],
      [`New errors: ${fmtInt(s.newErrors.count)}; fixed errors: ${fmtInt(s.fixedErrors.count)}; other state changes: ${fmtInt(s.otherStateChanges.count)}; not ended on a side: ${fmtInt(s.stateChanges.in_progress)}`],
      [`Answer similarity (cosine of term frequencies): median ${fmtNum(s.answerSimilarity.median, 3)}, mean ${fmtNum(s.answerSimilarity.mean, 3)} over ${fmtInt(s.answerSimilarity.n)} pairs`],
      [`Sources overlap (Jaccard): median ${fmtNum(s.sourcesJaccard.median, 3)}, mean ${fmtNum(s.sourcesJaccard.mean, 3)} over ${fmtInt(s.sourcesJaccard.n)} pairs`],
      [`Searches with a different match count: ${fmtInt(s.countChanges.count)}; with a different verdict: ${fmtInt(s.searchVerdictChanges.count)}`],
    ],
  });
  return blocks;
}

function gateBlocks(r: CompareResult): Block[] {
  const s = r.summary;
  const blocks: Block[] = [{ kind: 'heading', level: 2, text: ['Gates'] }];
  blocks.push({
    kind: 'table',
    table: {
      headers: ['gate', 'on', 'level', 'result'],
      rows: s.gates.map((g) => [g.name, g.enabled ? 'yes' : 'no', g.level === undefined ? '–' : `${Number((g.level * 100).toPrecision(2))}%`, gateOutcome(g)]),
    },
  });
  // Details in full, outside the table, whose cells a terminal would shorten.
  blocks.push({ kind: 'list', items: s.gates.map((g): Inline[] => [{ code: g.name }, `: ${g.detail}`]) });
  return blocks;
}

/** The items that changed, by question. */
function changeLists(r: CompareResult): Block[] {
  const s = r.summary;
  const state = (r: CompareRow): string => `${r.stateBaseline}${r.errorCodeBaseline ? ` (${r.errorCodeBaseline})` : ''} → ${r.stateCandidate}${r.errorCodeCandidate ? ` (${r.errorCodeCandidate})` : ''}`;
  return [
    ...listByQuestion('New errors', s.newErrors, r.byTarget, state),
    ...listByQuestion('Fixed errors', s.fixedErrors, r.byTarget, state),
    ...listByQuestion('Other state changes', s.otherStateChanges, r.byTarget, state),
    ...listByQuestion('Expectations newly failing', s.newFailures, r.byTarget, () => 'pass → fail'),
    ...listByQuestion('Expectations fixed', s.fixedFailures, r.byTarget, () => 'fail → pass'),
    ...listByQuestion('Searches with a different match count', s.countChanges, r.byTarget, (r) => `${fmtInt(r.countBaseline)} → ${fmtInt(r.countCandidate)}`),
    ...listByQuestion('Unpaired items', s.unpaired, r.byTarget, (r) => (r.pairing === 'baseline_only' ? 'only in the baseline' : 'only in the candidate')),
  ];
}
