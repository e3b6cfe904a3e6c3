import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../errors/errors.js';
import { type QuestionExportRow, type RunRecord, type SearchExportRow, iterateQuestionExport, iterateSearchExport, runTargets } from '../../store/queries.js';
import type { Store } from '../../store/store.js';
import { writeCsv } from '../csv.js';
import { renderMarkdown, renderText } from '../document.js';
import { inSnapshot, openResults, outputDir, resolveRun } from '../open.js';
import { safeJson } from '../tables.js';
import { type CompareSummary, CompareAccumulator } from './aggregate.js';
import { type BootstrapOptions, DEFAULT_BOOTSTRAP } from './bootstrap.js';
import { compareDocument } from './compare-document.js';
import { CompareHtml, type PairwiseView } from '../html/compare-html.js';
import { CompareJunit, writeJunitFile } from '../junit.js';
import { COMPARE_COLUMNS } from './compare-csv.js';
import { DEFAULT_THRESHOLDS, type Thresholds } from './gates.js';
import { type KeyPart, pairByKey } from './pairing.js';
import { type CompareRow, questionRow, searchRow } from './pairs.js';

export interface SideOptions {
  db: string;
  /** Run selector: id, label, latest, with optional ~N. */
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
}

export interface Side {
  db: string;
  run: RunRecord;
  /** The target compared, or null when items are paired across all targets by name. */
  target: string | null;
  targets: string[];
}

export interface CompareResult {
  baseline: Side;
  candidate: Side;
  /** Whether the target is part of the pairing key (multi-target runs compared target by target). */
  byTarget: boolean;
  summary: CompareSummary;
  /** Set when a gate had nothing (or too little) to judge: what was compared and why it did not pair. */
  nothingCompared: string | undefined;
  thresholds: Thresholds;
  bootstrap: BootstrapOptions;
  out: string;
  files: string[];
  markdown: string;
  text: string;
  /** Writes compare.md, compare.json and compare.html (when written) again with the pairwise judge's section (`text` as printed). */
  addPairwise: (pairwise: PairwiseView, text: string) => void;
}

/** Pairs two runs (or two targets of runs), streams compare.csv, and writes compare.md and compare.json. */
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
      const bRun = resolveRun(baselineStore.db, options.baseline.db, options.baseline.run);
      const cRun = resolveRun(cStore.db, options.candidate.db, options.candidate.run);
      const { baseline, candidate, byTarget } = chooseTargets(
        { db: options.baseline.db, run: bRun, targets: runTargets(baselineStore.db, bRun.id).map((t) => t.name), requested: options.baseline.target },
        { db: options.candidate.db, run: cRun, targets: runTargets(cStore.db, cRun.id).map((t) => t.name), requested: options.candidate.target },
      );
      if (sameDb && bRun.id === cRun.id && baseline.target === candidate.target) {
        throw new UsageError(`baseline and candidate are the same run (${bRun.id}${baseline.target ? `, target ${baseline.target}` : ''}); name two runs, or two targets with --targets a,b`);
      }
      const out = options.out ?? outputDir(options.candidate.db, `compare-${bRun.id}-vs-${cRun.id}${byTarget ? '' : targetSuffix(baseline, candidate)}`);
      mkdirSync(out, { recursive: true });
      const acc = new CompareAccumulator(options.maxListed ?? 50);
      const html = options.html ? new CompareHtml() : undefined;
      const junit = options.junit !== undefined ? new CompareJunit() : undefined;
      const qKey = (r: QuestionExportRow): KeyPart[] => (byTarget ? [r.target, r.suiteItemId, r.repeat, r.turn] : [r.suiteItemId, r.repeat, r.turn]);
      const sKey = (r: SearchExportRow): KeyPart[] => (byTarget ? [r.target, r.suiteItemId, r.repeat] : [r.suiteItemId, r.repeat]);
      const exportOptions = (side: Side) => ({ order: 'key' as const, target: side.target ?? undefined });
      function* rows(): Generator<CompareRow & { baselineRunId: number; candidateRunId: number }> {
        const ids = { baselineRunId: bRun.id, candidateRunId: cRun.id };
        const questions = pairByKey(
          iterateQuestionExport(baselineStore.db, bRun.id, exportOptions(baseline)),
          iterateQuestionExport(cStore.db, cRun.id, exportOptions(candidate)),
          qKey,
          qKey,
        );
        for (const p of questions) {
          const row = questionRow(p);
          acc.add(row);
          html?.add(p, row);
          junit?.add(row);
          yield { ...row, ...ids };
        }
        const searches = pairByKey(
          iterateSearchExport(baselineStore.db, bRun.id, exportOptions(baseline)),
          iterateSearchExport(cStore.db, cRun.id, exportOptions(candidate)),
          sKey,
          sKey,
        );
        for (const p of searches) {
          const row = searchRow(p);
          acc.add(row);
          html?.add(p, row);
          junit?.add(row);
          yield { ...row, ...ids };
        }
      }
      const csvFile = path.join(out, 'compare.csv');
      await writeCsv(csvFile, COMPARE_COLUMNS, rows(), { bom: options.bom === true });
      const summary = acc.finish(thresholds, bootstrap);
      const files = [csvFile, path.join(out, 'compare.md'), path.join(out, 'compare.json'), ...(html ? [path.join(out, 'compare.html')] : []), ...(options.junit !== undefined ? [options.junit] : [])];
      const nothingCompared = summary.starved.length === 0 ? undefined : nothingComparedMessage(baseline, candidate, byTarget, summary, thresholds);
      let rewriteHtml: ((pairwise: PairwiseView) => void) | undefined;
      // compare --judge asks the judge after the files are written: they are written again with its section.
      const addPairwise = (pairwise: PairwiseView, text: string) => {
        writeFileSync(files[1]!, result.markdown + text);
        writeFileSync(files[2]!, safeJson({ ...compareJson(result), pairwise: { ...pairwise.result, failedGates: pairwise.failedGates } }));
        rewriteHtml?.(pairwise);
      };
      const result: CompareResult = { baseline, candidate, byTarget, summary, nothingCompared, thresholds, bootstrap, out, files, markdown: '', text: '', addPairwise };
      const blocks = compareDocument(result);
      result.markdown = renderMarkdown(blocks);
      result.text = renderText(blocks);
      writeFileSync(files[1]!, result.markdown);
      writeFileSync(files[2]!, safeJson(compareJson(result)));
      if (html) {
        const generatedAt = new Date().toISOString();
        writeFileSync(files[3]!, html.page(result, generatedAt));
        rewriteHtml = (pairwise) => writeFileSync(files[3]!, html.page(result, generatedAt, pairwise));
      }
      if (junit) writeJunitFile(options.junit!, junit.xml(result));
      return result;
    };
    // One snapshot per database, so a run that is still writing cannot change under the comparison.
    return await inSnapshot(baselineStore.db, () => (sameDb ? work() : inSnapshot(cStore.db, work)));
  } finally {
    baselineStore.close();
    if (candidateStore && candidateStore !== baselineStore) candidateStore.close();
  }
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
  if (bOnly === 0 && cOnly === 0) why = 'neither run recorded a question turn or a search (stopped before anything ran?)';
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
}

/**
 * Which targets are compared. Named targets (--targets a,b): exactly those. Otherwise two single-target
 * runs compare their one target each, whatever its name; runs with several targets pair items target by
 * target (the target is part of the key).
 */
export function chooseTargets(b: SideInput, c: SideInput): { baseline: Side; candidate: Side; byTarget: boolean } {
  const side = (s: SideInput, target: string | null): Side => ({ db: s.db, run: s.run, target, targets: s.targets });
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

export function compareJson(r: CompareResult): Record<string, unknown> {
  const side = (s: Side) => ({ db: s.db, runId: s.run.id, label: s.run.label, suite: s.run.suiteName, status: s.run.status, startedAt: s.run.startedAt, target: s.target, targets: s.targets });
  return {
    baseline: side(r.baseline),
    candidate: side(r.candidate),
    pairedBy: r.byTarget ? ['target', 'item_id', 'repeat', 'turn'] : ['item_id', 'repeat', 'turn'],
    thresholds: { ...r.thresholds, failOn: [...r.thresholds.failOn] },
    bootstrap: r.bootstrap,
    failed: r.summary.failed,
    nothingCompared: r.nothingCompared ?? null,
    summary: r.summary,
    files: r.files,
  };
}
