import path from 'node:path';
import { loadSuite } from '../config/load-suite.js';
import type { StoredTarget } from '../config/resume-targets.js';
import { UsageError } from '../errors/errors.js';
import { allocate, ConfirmTally, type Driver, RATE_GATES, type RateGate } from '../report/compare/confirm-tally.js';
import { confirmLevels, firstLookOf, type GateLook, secondLookGates, secondLookOf, secondLookSummary, statisticalGates, type ConfirmLevels } from '../report/compare/confirm-decision.js';
import { compareRuns } from '../report/compare/compare.js';
import type { CompareResult } from '../report/compare/compare-result.js';
import { type SecondLook, type Thresholds, type Verdict, verdictLine, verdictOf } from '../report/compare/gates.js';
import { questionRow, searchRow } from '../report/compare/pairs.js';
import { openResults, outputDir, resolveBaseline, resolveRun } from '../report/open.js';
import type { RunTarget } from '../runner/item-context.js';
import type { Reporter } from '../runner/reporters/reporter.js';
import { executeRun } from '../runner/run.js';
import type { BootstrapOptions } from '../stats/bootstrap.js';
import { type ConfirmRecord, confirmationsOf, confirmationTotals, plannedRepeats, saveConfirmation } from '../store/confirmations.js';
import { iterateQuestionExport, iterateSearchExport, runCounts, type RunRecord, runTargets } from '../store/queries.js';
import { openStore } from '../store/store.js';

// `dsbench confirm RUN --baseline REF`: a second look before red. The first look is the comparison of RUN
// with REF, every statistical gate tested at the first level of a two-look alpha-spending design; a gate
// the plain comparison flags, or that comes near at that look, is settled by re-asking the questions that
// drive it (on RUN's own target, more repeats, within a budget) as a run of its own (a confirmation,
// `confirm_of` RUN), then deciding again at the second level (docs/statistics.md).

/** `--confirm-budget`: a number of items, or a share of the run's items. */
export type ConfirmBudget = { items: number } | { share: number };

export interface ConfirmOptions {
  db: string;
  run: string;
  baseline: { db: string; run: string };
  budget: ConfirmBudget;
  /** The false-alarm rate of a `regressed` verdict over both looks. */
  alpha: number;
  thresholds: Thresholds;
  bootstrap: BootstrapOptions;
  out?: string | undefined;
  /** The connections to RUN's own targets (refusing an endpoint that changed since). */
  bind: (runId: number, stored: readonly StoredTarget[]) => RunTarget[];
  reporter: Reporter;
  stop: AbortSignal;
  abort: AbortSignal;
  retry?: { baseDelayMs?: number; maxDelayMs?: number } | undefined;
  requestTimeoutMs?: number | undefined;
}

export interface ConfirmResult {
  verdict: Verdict;
  line: string;
  first: CompareResult;
  /** Gates that called for the second look: flagged by the plain comparison, or near at the strict first look. */
  flagged: string[];
  levels: ConfirmLevels | null;
  /** Every statistical gate at the first look's strict level, before anything was re-asked. */
  firstLooks: GateLook[];
  second: SecondLook | null;
  looks: GateLook[];
  /** The confirmation run, when questions were re-asked (or had been by an interrupted confirmation). */
  confirmRunId: number | null;
  /** `repeats`: the most any question was re-asked; `questionRepeats`: each question's, in the order of `questions` (the worst first). */
  reasked: { questions: string[]; repeats: number; questionRepeats: number[]; items: number; credits: number | null; budget: number };
  /** The confirmation run stopped before its end (a signal): no decision, resume with the same command. */
  interrupted: boolean;
}

export async function confirmRun(options: ConfirmOptions): Promise<ConfirmResult> {
  const store = openStore(options.db);
  try {
    const candidate = resolveRun(store.db, options.db, options.run);
    const stored = runTargets(store.db, candidate.id);
    const baseline = resolveConfirmBaseline(options, store, candidate, stored);
    for (const pooled of baseline.runs) refuseChangedEndpoint(candidate, stored, pooled.run, pooled.targets);
    const targets = options.bind(candidate.id, stored);
    const out = options.out ?? outputDir(options.db, `confirm-${candidate.id}-vs-${baseline.name}`);
    const rows: Parameters<ConfirmTally['addCompared']>[0][] = [];
    const tally = new ConfirmTally();
    const first = await compareRuns({
      // A window is resolved again by the comparison, against the same candidate: the same runs.
      baseline: { db: options.baseline.db, run: baseline.window === null ? String(baseline.run.id) : `window:${baseline.window}` },
      candidate: { db: options.db, run: String(candidate.id) },
      out: path.join(out, 'first-look'),
      // This is the first look of the confirmation: its verdict points to no other.
      secondLookHint: 'none',
      thresholds: options.thresholds,
      bootstrap: options.bootstrap,
      onRow: (row) => {
        rows.push(row);
        tally.addCompared(row);
      },
    });
    const asked = runCounts(store.db, candidate.id).items;
    const budget = 'items' in options.budget ? options.budget.items : Math.ceil(options.budget.share * asked);
    const none = { questions: [], repeats: 0, questionRepeats: [], items: 0, credits: null, budget };
    const gates = statisticalGates(first.summary);
    const plain = (verdict: Verdict): ConfirmResult => ({ verdict, line: verdictLine(verdict, first.summary, undefined, undefined, 'none'), first, flagged: [], levels: null, firstLooks: [], second: null, looks: [], confirmRunId: null, reasked: none, interrupted: false });
    if (gates.length === 0) return plain(verdictOf(first.summary));
    // Every statistical gate at the first look, whatever the plain gates said; the second look for those that call for it.
    const levels = confirmLevels(options.alpha, asked, budget, first.summary);
    const firstLooks = firstLookOf(gates, tally, rows, levels, options.thresholds, options.bootstrap);
    const firstLook = firstLooks.filter((l) => l.crossed).map((l) => l.gate);
    const flagged = secondLookGates(first.summary, firstLooks);
    const decided = (second: SecondLook, looks: GateLook[], confirmRunId: number | null, reasked: ConfirmResult['reasked']): ConfirmResult => {
      const verdict = verdictOf(first.summary, second);
      return { verdict, line: verdictLine(verdict, first.summary, second), first, flagged: flagged.map((g) => g.name), levels, firstLooks, second, looks, confirmRunId, reasked, interrupted: false };
    };
    if (firstLook.length > 0) return decided(secondLookSummary(firstLook, []), [], null, none);
    if (flagged.length === 0) return { ...plain(verdictOf(first.summary)), levels, firstLooks };

    const rateGates = flagged.map((g) => g.name).filter((n): n is RateGate => (RATE_GATES as readonly string[]).includes(n));
    const recorded = { db: path.resolve(options.baseline.db), runId: baseline.run.id, ...(baseline.window !== null && { window: baseline.window }) };
    const existing = confirmationsOf(store.db, candidate.id).find((c) => c.record === null || sameBaseline(c.record.baseline, recorded));
    const plan = existing?.record ?? planOf(tally.drivers(rateGates), budget, recorded);
    let confirmRunId = existing?.runId ?? null;
    if (plan.questions.length > 0 && (existing === undefined || existing.status !== 'completed')) {
      const suite = await loadSuite(candidate.suitePath);
      if (suite.sha256 !== candidate.suiteHash) throw new UsageError(`the suite ${candidate.suitePath} changed since run ${candidate.id}: a confirmation re-asks that run's questions as they were; confirm a run of the suite as it is now`);
      const each = plannedRepeats(plan);
      const repeatsOf = new Map(plan.questions.map((q, i) => [q, each[i]!]));
      const result = await executeRun({
        suite,
        targets,
        recorder: store.recorder,
        observers: [options.reporter],
        api: stored[0]?.api,
        repeats: plan.repeats,
        // A resumed confirmation keeps the items it planned (whatever its record's shape); a new one each question's first repeats.
        subset: existing
          ? { keep: (item) => store.recorder.hasItem(existing.runId, item.key), confirmOf: candidate.id }
          : { keep: (item) => item.repeat < (repeatsOf.get(questionKey(item.target, item.kind, item.suiteItemId)) ?? 0), confirmOf: candidate.id },
        resumeRunId: existing?.runId,
        onQuota: 'continue',
        maxQuotaWaitMs: 0,
        cleanup: false,
        onRunOpened: (id) => {
          confirmRunId = id;
          saveConfirmation(store.db, id, plan);
        },
        stop: options.stop,
        abort: options.abort,
        retry: options.retry,
        requestTimeoutMs: options.requestTimeoutMs,
      });
      if (result.status !== 'completed' && result.status !== 'failed') {
        return { ...plain('undecided'), line: `Confirmation run ${result.runId} stopped before its end: nothing decided; run the same command again to resume it (nothing is asked twice)`, flagged: flagged.map((g) => g.name), levels, firstLooks, confirmRunId: result.runId, interrupted: true };
      }
    }
    if (confirmRunId !== null) addReasked(store, confirmRunId, tally);
    const looks = secondLookOf(flagged, tally, rows, levels, options.thresholds, options.bootstrap);
    const totals = confirmRunId === null ? { items: 0, credits: null } : confirmationTotals(store.db, candidate.id, confirmRunId);
    const result = decided(secondLookSummary([], looks), looks, confirmRunId, { questions: plan.questions.map(displayKey), repeats: plan.repeats, questionRepeats: plannedRepeats(plan), items: totals.items, credits: totals.credits, budget });
    if (confirmRunId !== null) saveConfirmation(store.db, confirmRunId, { ...plan, decision: { verdict: result.verdict, line: result.line, decidedAt: new Date().toISOString() } });
    return result;
  } finally {
    store.close();
  }
}

/** The baseline of a confirmation: one run, or the runs a `window:K` pools (newest first; `run` is the newest). */
interface ConfirmBaseline {
  run: RunRecord;
  window: number | null;
  runs: Array<{ run: RunRecord; targets: StoredTarget[] }>;
  /** For the output folder: the run's id, or `windowK`. */
  name: string;
}

function resolveConfirmBaseline(options: ConfirmOptions, store: ReturnType<typeof openStore>, candidate: RunRecord, stored: readonly StoredTarget[]): ConfirmBaseline {
  if (candidate.confirmOf !== null) throw new UsageError(`run ${candidate.id} is a confirmation of run ${candidate.confirmOf}: confirm run ${candidate.confirmOf} itself`);
  if (candidate.status === 'running') throw new UsageError(`run ${candidate.id} is still running: confirm it once it has ended (dsbench runs shows its status)`);
  const same = path.resolve(options.baseline.db) === path.resolve(options.db);
  const bStore = same ? store : openResults(options.baseline.db);
  try {
    // As compare resolves it: a window pools the passing runs of the suite and targets before the candidate.
    const { runs, window } = resolveBaseline(bStore.db, options.baseline.db, options.baseline.run, { run: candidate, targets: stored.map((t) => t.name), sameDb: same });
    const run = runs[0]!;
    if (same && run.id === candidate.id) throw new UsageError(`the baseline and the run to confirm are the same run (${run.id}); name an earlier run with --baseline`);
    return { run, window, runs: runs.map((r) => ({ run: r, targets: runTargets(bStore.db, r.id) })), name: window === null ? String(run.id) : `window${window}` };
  } finally {
    if (!same) bStore.close();
  }
}

const sameBaseline = (a: ConfirmRecord['baseline'], b: ConfirmRecord['baseline']): boolean => a.db === b.db && a.runId === b.runId && (a.window ?? null) === (b.window ?? null);

/** A confirmation asks the candidate's instance again; that settles nothing if the baseline ran on another. */
function refuseChangedEndpoint(candidate: RunRecord, stored: readonly StoredTarget[], baseline: RunRecord, baselineTargets: readonly StoredTarget[]): void {
  for (const t of stored) {
    const b = baselineTargets.find((x) => x.name === t.name) ?? (stored.length === 1 && baselineTargets.length === 1 ? baselineTargets[0] : undefined);
    // The embedded emulator's URL is a port of the moment: it names no instance.
    if (b && b.url !== t.url && !(t.emulated && b.emulated)) {
      throw new UsageError(
        `run ${candidate.id} ran on ${t.name}=${t.url}, its baseline run ${baseline.id} on ${b.name}=${b.url}: the endpoint changed between them, so re-asking on ${t.url} cannot tell a change of the service from a change of instance. Confirm against a baseline of the same endpoint`,
      );
    }
  }
}

const questionKey = (target: string, kind: string, id: string): string => `${target}\u0000${kind}\u0000${id}`;
const displayKey = (key: string): string => {
  const [target, kind, id] = key.split('\u0000');
  return `${kind === 'search' ? 'search ' : ''}${target}/${id}`;
};

function planOf(drivers: readonly Driver[], budget: number, baseline: ConfirmRecord['baseline']): ConfirmRecord {
  const chosen = allocate(drivers, budget);
  const questionRepeats = chosen.map((c) => c.repeats);
  const most = questionRepeats.reduce((a, n) => Math.max(a, n), 0);
  return { baseline, questions: chosen.map(({ driver: d }) => questionKey(d.target, d.kind, d.itemId)), repeats: most, questionRepeats, budget };
}

function addReasked(store: ReturnType<typeof openStore>, confirmRunId: number, tally: ConfirmTally): void {
  for (const r of iterateQuestionExport(store.db, confirmRunId, { order: 'key' })) tally.addReasked(questionRow({ pairing: 'candidate_only', key: [], candidate: r }));
  for (const r of iterateSearchExport(store.db, confirmRunId, { order: 'key' })) tally.addReasked(searchRow({ pairing: 'candidate_only', key: [], candidate: r }));
}

/** `--confirm-budget`: `10%` (of the run's items) or `25` (items). */
export function parseConfirmBudget(text: string): ConfirmBudget {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(text);
  if (!m) throw new UsageError(`--confirm-budget takes a number of items (e.g. 25) or a share of the run's items (e.g. 10%), got ${JSON.stringify(text)}`);
  const value = Number(m[1]);
  if (m[2] === '%') {
    if (!(value > 0 && value <= 100)) throw new UsageError(`--confirm-budget ${text}: a share must be above 0% and at most 100%`);
    return { share: value / 100 };
  }
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`--confirm-budget ${text}: a number of items must be a whole number of at least 1`);
  return { items: value };
}
