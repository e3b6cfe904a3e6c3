import { mkdirSync } from 'node:fs';
import type Database from 'better-sqlite3';
import path from 'node:path';
import { UsageError } from '../../errors/errors.js';
import { type ComparedQuestionRow, type RunRecord, type RunTargetRow, type SearchExportRow, iterateComparedQuestions, iterateSearchExport, runProductVersions, runTargets, type TargetProductVersion } from '../../store/queries.js';
import type { Store } from '../../store/store.js';
import { renderMarkdown, renderText } from '../document.js';
import { type BaselineRuns, inSnapshot, openResults, outputDir, resolveBaseline, resolveRun } from '../open.js';
import { abandonSinks, endSinks, openSinks, rowsTo } from '../sink.js';
import { type CompareSummary, CompareAccumulator } from './aggregate.js';
import { type BootstrapOptions, DEFAULT_BOOTSTRAP } from '../../stats/bootstrap.js';
import { compareDocument } from './compare-document.js';
import type { CompareResult, ExportRow, PairwiseView, Side } from './compare-result.js';
import { COMPARE_SINKS, type CompareOutput } from './compare-sinks.js';
import { DEFAULT_THRESHOLDS, type SecondLookHint, type Thresholds, verdictLine, verdictOf } from './gates.js';
import { type KeyPart, type Paired, pairByKey } from './pairing.js';
import { type CompareRow, questionRow, searchRow } from './pairs.js';
import { type PooledPair, pairPooled } from './pooled.js';
import { removeStalePartials } from '../whole-file.js';

export interface SideOptions {
  db: string;
  /** Run selector: id, label, latest, with optional ~N; blessed:<name>; on the baseline also window:K. */
  run: string;
  /** Only this target of the run. */
  target?: string | undefined;
}

export interface CompareOptions {
  baseline: SideOptions;
  candidate: SideOptions;
  /** Output folder; default results/compare-<baseline id>-vs-<candidate id>. */
  out?: string | undefined;
  thresholds?: Thresholds;
  bootstrap?: BootstrapOptions;
  bom?: boolean | undefined;
  /** Rows listed per category in the summary. */
  maxListed?: number;
  /** Also write compare.html. */
  html?: boolean | undefined;
  /** Also write JUnit XML to this file. */
  junit?: string | undefined;
  /** Judge items edited under the same id in the gates too (by default they are listed and judged by none). */
  includeEdited?: boolean | undefined;
  /** Told each row as it streams (a confirmation tallies the questions behind the gates from them). */
  onRow?: ((row: CompareRow) => void) | undefined;
  /** How the verdict points to a second look (default: the `dsbench confirm` command). */
  secondLookHint?: SecondLookHint | undefined;
  /** Columns the terminal summary (`text`) is fitted to; default DEFAULT_TEXT_WIDTH. */
  textWidth?: number | undefined;
}

/**
 * Pairs two runs (or two targets of runs), streams the pairs to compare.csv (and to the page and JUnit, when
 * asked for), and writes compare.md and compare.json.
 */
export async function compareRuns(options: CompareOptions): Promise<CompareResult> {
  const thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
  const bootstrap = options.bootstrap ?? DEFAULT_BOOTSTRAP;
  const sameDb = path.resolve(options.baseline.db) === path.resolve(options.candidate.db);
  const baselineStore = openResults(options.baseline.db);
  let candidateStore: Store | undefined;
  try {
    candidateStore = sameDb ? baselineStore : openResults(options.candidate.db);
    const cStore = candidateStore;
    const work = async (): Promise<CompareResult> => {
      const cRun = resolveRun(cStore.db, options.candidate.db, options.candidate.run);
      const cTargetRows = runTargets(cStore.db, cRun.id);
      const cTargets = cTargetRows.map((t) => t.name);
      const bRuns = resolveBaseline(baselineStore.db, options.baseline.db, options.baseline.run, { run: cRun, targets: cTargets, sameDb }, options.baseline.target);
      const bRun = bRuns.runs[0]!;
      // A pooled baseline's targets are its newest run's; an emulator serving any pooled run counts.
      const bTargetRows = bRuns.runs.flatMap((r) => runTargets(baselineStore.db, r.id));
      const { baseline, candidate, byTarget } = chooseTargets(
        { db: options.baseline.db, run: bRun, targets: runTargets(baselineStore.db, bRun.id).map((t) => t.name), requested: options.baseline.target, versions: runProductVersions(baselineStore.db, bRun.id), emulated: emulatedNames(bTargetRows) },
        { db: options.candidate.db, run: cRun, targets: cTargets, requested: options.candidate.target, versions: runProductVersions(cStore.db, cRun.id), emulated: emulatedNames(cTargetRows) },
      );
      if (bRuns.window !== null) baseline.window = { runs: bRuns.runs, requested: bRuns.window };
      if (sameDb && bRun.id === cRun.id && baseline.target === candidate.target) {
        throw new UsageError(`baseline and candidate are the same run (${bRun.id}${baseline.target ? `, target ${baseline.target}` : ''}); name two runs, or two targets with --targets a,b`);
      }
      const bName = bRuns.window === null ? String(bRun.id) : `window${bRuns.window}`;
      const out = options.out ?? outputDir(options.candidate.db, `compare-${bName}-vs-${cRun.id}${byTarget ? '' : targetSuffix(baseline, candidate)}`);
      mkdirSync(out, { recursive: true });
      removeStalePartials(out);
      const acc = new CompareAccumulator(options.maxListed ?? 50, options.includeEdited === true);
      const names = new Set<CompareOutput>(['csv', 'md', 'json']);
      if (options.html) names.add('html');
      if (options.junit !== undefined) names.add('junit');
      const sinks = await openSinks(COMPARE_SINKS, names, { out, baselineRunId: bRun.id, candidateRunId: cRun.id, bom: options.bom === true, junit: options.junit });
      let result: CompareResult;
      try {
        const toSinks = rowsTo(sinks);
        const add = <T extends ExportRow>(pairs: Iterable<PooledPair<T>>, rowOf: (pair: Paired<T, T>) => CompareRow) => {
          for (const pair of pairs) {
            const row = rowOf(pair);
            if (pair.baselineRun !== undefined) row.baselineRun = pair.baselineRun;
            acc.add(row);
            options.onRow?.(row);
            toSinks?.({ pair, row });
          }
        };
        const sides = { baselineDb: baselineStore.db, candidateDb: cStore.db, baseline, candidate, baselineRuns: bRuns, candidateRun: cRun.id, byTarget };
        add(pairSides(sides, iterateComparedQuestions, questionKey(byTarget), 2), questionRow);
        add(pairSides(sides, iterateSearchExport, searchKey(byTarget), 1), searchRow);
        const summary = acc.finish(thresholds, bootstrap);
        const nothingCompared = summary.starved.length === 0 ? undefined : nothingComparedMessage(baseline, candidate, byTarget, summary, thresholds);
        const files = sinks.flatMap((s) => s.files);
        // compare --judge asks the judge after the files are written: they are written again with its section.
        const addPairwise = (pairwise: PairwiseView, text: string) => {
          for (const s of sinks) s.pairwise?.(result, pairwise, text);
        };
        const verdict = verdictOf(summary);
        result = { baseline, candidate, byTarget, summary, verdict, verdictLine: verdictLine(verdict, summary, undefined, { baseline: bRun.id, candidate: cRun.id }, options.secondLookHint), nothingCompared, thresholds, bootstrap, out, files, markdown: '', text: '', addPairwise };
        const blocks = compareDocument(result);
        result.markdown = renderMarkdown(blocks);
        result.text = renderText(blocks, options.textWidth);
      } catch (error) {
        abandonSinks(sinks);
        throw error;
      }
      await endSinks(sinks, result);
      return result;
    };
    // One snapshot per database, so a run that is still writing cannot change under the comparison.
    return await inSnapshot(baselineStore.db, () => (sameDb ? work() : inSnapshot(cStore.db, work)));
  } finally {
    baselineStore.close();
    if (candidateStore && candidateStore !== baselineStore) candidateStore.close();
  }
}

const questionKey =
  (byTarget: boolean) =>
  (r: ComparedQuestionRow): KeyPart[] =>
    byTarget ? [r.target, r.suiteItemId, r.repeat, r.turn] : [r.suiteItemId, r.repeat, r.turn];
const searchKey =
  (byTarget: boolean) =>
  (r: SearchExportRow): KeyPart[] =>
    byTarget ? [r.target, r.suiteItemId, r.repeat] : [r.suiteItemId, r.repeat];

interface PairedSides {
  baselineDb: Database.Database;
  candidateDb: Database.Database;
  baseline: Side;
  candidate: Side;
  baselineRuns: BaselineRuns;
  candidateRun: number;
}

/**
 * The two sides' items paired by key: a merge join of two runs, or for a pooled baseline the candidate's
 * items paired with each pooled run's, a question at a time. `tail`: the key parts after the question's
 * (repeat and turn, or repeat).
 */
function pairSides<T extends ExportRow>(
  s: PairedSides,
  iterate: (db: Database.Database, runId: number, options: { order: 'key'; target: string | undefined }) => Iterable<T>,
  key: (row: T) => KeyPart[],
  tail: number,
): Iterable<PooledPair<T>> {
  const options = (side: Side) => ({ order: 'key' as const, target: side.target ?? undefined });
  const candidate = iterate(s.candidateDb, s.candidateRun, options(s.candidate));
  if (s.baselineRuns.window === null) return pairByKey(iterate(s.baselineDb, s.baselineRuns.runs[0]!.id, options(s.baseline)), candidate, key, key);
  const baselines = s.baselineRuns.runs.map((run) => ({ runId: run.id, items: iterate(s.baselineDb, run.id, options(s.baseline)) }));
  return pairPooled(baselines, candidate, key, (row) => key(row).slice(0, -tail));
}

function sideText(s: Side): string {
  return `run ${s.run.id} (suite ${s.run.suiteName}, ${s.target !== null ? `target ${s.target}` : `targets ${s.targets.join(', ') || 'none'}`})`;
}

/** What was compared, what paired, and why nothing (or too little) did, with what to do. */
export function nothingComparedMessage(b: Side, c: Side, byTarget: boolean, s: CompareSummary, t: Thresholds): string {
  const paired = s.questions.paired + s.searches.paired;
  const bOnly = s.questions.baselineOnly + s.searches.baselineOnly;
  const cOnly = s.questions.candidateOnly + s.searches.candidateOnly;
  const head =
    `nothing to judge: compared ${sideText(b)} with ${sideText(c)}; paired ${s.questions.paired} question turns and ${s.searches.paired} searches ` +
    `(${bOnly} only in the baseline, ${cOnly} only in the candidate)`;
  if (paired > 0) {
    return `${head}. ${s.starved.join('; ')}. Compare runs with more items, lower --min-pairs, or turn that gate off (e.g. --max-latency-regression off).`;
  }
  let why: string;
  if (s.edited.count > 0 && !s.edited.inGates) why = `every item paired by id was edited under the same id (${s.edited.count} items, listed below), and no gate judges an edited item; --include-edited judges them`;
  else if (bOnly === 0 && cOnly === 0) why = 'neither run recorded a question turn or a search (stopped before anything ran?)';
  else if (bOnly === 0 || cOnly === 0) why = `run ${(bOnly === 0 ? b : c).run.id} recorded no question turn or search (stopped before anything ran?)`;
  else if (b.run.suiteName !== c.run.suiteName) why = `the runs are of different suites (${b.run.suiteName} and ${c.run.suiteName}), so no item id matches; compare two runs of one suite`;
  else if (byTarget && !b.targets.some((name) => c.targets.includes(name))) {
    why = `the runs have no target in common; name one of each with --targets ${b.targets[0] ?? 'a'},${c.targets[0] ?? 'b'}`;
  } else why = 'no item id and repeat is in both runs (was --repeats or the suite changed?)';
  return `${head}: ${why}.`;
}

function targetSuffix(b: Side, c: Side): string {
  const safe = (t: string | null): string => (t ?? 'all').replace(/[^A-Za-z0-9._-]+/g, '_');
  return `-${safe(b.target)}-vs-${safe(c.target)}`;
}

interface SideInput {
  db: string;
  run: RunRecord;
  targets: string[];
  requested: string | undefined;
  versions: TargetProductVersion[];
  /** Targets a dsbench emulator answered. */
  emulated: ReadonlySet<string>;
}

const emulatedNames = (rows: readonly RunTargetRow[]): ReadonlySet<string> => new Set(rows.filter((t) => t.servedByEmulator).map((t) => t.name));

/**
 * Which targets are compared. Named targets (--targets a,b): exactly those. Otherwise two single-target
 * runs compare their one target each, whatever its name; runs with several targets pair items target by
 * target (the target is part of the key).
 */
export function chooseTargets(b: SideInput, c: SideInput): { baseline: Side; candidate: Side; byTarget: boolean } {
  const side = (s: SideInput, target: string | null): Side => ({
    db: s.db,
    run: s.run,
    target,
    targets: s.targets,
    productVersions: target === null ? s.versions : s.versions.filter((v) => v.target === target),
    servedByEmulator: target === null ? s.emulated.size > 0 : s.emulated.has(target),
  });
  for (const s of [b, c]) {
    if (s.requested !== undefined && !s.targets.includes(s.requested)) {
      throw new UsageError(`run ${s.run.id} in ${s.db} has no target ${s.requested}; its targets: ${s.targets.join(', ') || '(none)'}`);
    }
  }
  if (b.requested !== undefined || c.requested !== undefined) {
    if (b.requested === undefined || c.requested === undefined) throw new UsageError('--targets needs two names: --targets baseline,candidate');
    return { baseline: side(b, b.requested), candidate: side(c, c.requested), byTarget: false };
  }
  if (b.targets.length === 1 && c.targets.length === 1) return { baseline: side(b, b.targets[0]!), candidate: side(c, c.targets[0]!), byTarget: false };
  return { baseline: side(b, null), candidate: side(c, null), byTarget: true };
}
