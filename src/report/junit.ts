import type Database from 'better-sqlite3';
import { ExitCode } from '../errors/exit-codes.js';
import { truncationOf, type Truncation } from '../model/truncation.js';
import { itemExitCode, type VerdictOutcome } from '../model/verdict.js';
import { type ExpectationRecord, type QuestionExportRow, type RunRecord, iterateItemVerdicts, iterateQuestionExport, iterateSearchExport } from '../store/queries.js';
import { type Case, Suites, writeJunitFile } from './junit-xml.js';
import type { ReportResult, RunSink, RunSinkOptions } from './report-result.js';
import { formatThresholdValue, runThresholdResults, thresholdName, thresholdVerdict } from './thresholds.js';

// A run as JUnit: one test case per item of the run and per threshold of its suite.

function checksFailure(checks: readonly ExpectationRecord[]): Case['failure'] {
  const failed = checks.filter((c) => !c.passed);
  if (failed.length === 0) return undefined;
  return {
    type: 'expectation',
    message: failed.map((c) => `${c.name}: ${c.reason}`).join('; '),
    body: checks.map((c) => `${c.name}: ${c.passed ? 'pass' : 'fail'}: ${c.reason}`).join('\n'),
  };
}

/** An <error> when the item's outcome is not one its checks can judge (the one verdict function decides). */
function outcomeError(kind: 'question' | 'search', outcome: VerdictOutcome, httpStatus: number | null, detail: string): Case['error'] {
  const code = itemExitCode(kind, outcome, httpStatus);
  if (code === ExitCode.ok) return undefined;
  const why = code === ExitCode.aborted ? 'not run to its end: the run stopped first' : detail || outcome;
  return { type: String(outcome), message: `${outcome}: ${why}`, body: why };
}

const outcomeOf = (row: { itemStatus: string; outcome: string | null }): VerdictOutcome => (row.outcome ?? row.itemStatus) as VerdictOutcome;

function questionCase(suite: string, turns: QuestionExportRow[]): Case {
  const first = turns[0]!;
  const last = turns.at(-1)!;
  const seconds = turns.reduce((sum, t) => sum + (t.serverMs ?? t.wallMs ?? 0), 0) / 1000;
  const detail = [last.errorCode, last.errorMessage, last.clientError].filter(Boolean).join(': ');
  const trace = traceLink(turns.find((t) => t.traceUrl !== null || t.traceId !== null) ?? first);
  return {
    classname: `${suite}.${first.target}.questions`,
    name: `${first.suiteItemId} [repeat ${first.repeat}]`,
    seconds,
    error: withTrace(outcomeError('question', outcomeOf(first), null, detail), trace),
    failure: withTrace(withTruncation(checksFailure(first.expectations), truncationOf(last.errorCode), detail), trace),
  };
}

/** The instance's trace of an item (run --trace): its URL, else its id; undefined when none was kept. */
function traceLink(row: { traceUrl?: string | null; traceId?: string | null }): string | undefined {
  return row.traceUrl ?? (row.traceId ? `trace id ${row.traceId}` : undefined);
}

/** A failure or error of a traced item names its trace, where the reader of a CI log looks. */
function withTrace<T extends Case['failure'] | Case['error']>(problem: T, trace: string | undefined): T {
  if (!problem || trace === undefined) return problem;
  return { ...problem, message: `${problem.message} (trace: ${trace})`, body: `${problem.body}\ntrace: ${trace}` };
}

/** A failed check of a question stopped by the output limit says which of the two outcomes it was. */
function withTruncation(failure: Case['failure'], truncation: Truncation | undefined, detail: string): Case['failure'] {
  if (!failure || !truncation) return failure;
  return { type: truncation, message: `${truncation}: ${failure.message}`, body: `${truncation}: ${detail}\n${failure.body}` };
}

/** JUnit XML of one run: a test suite per target, a test case per item (read in plan order from the store). */
export function runJunit(db: Database.Database, run: RunRecord): { xml: string; tests: number; failures: number; errors: number } {
  const suites = new Suites();
  const suiteName = (target: string) => `${run.suiteName} / ${target}`;
  let turns: QuestionExportRow[] = [];
  const flush = () => {
    if (turns.length > 0) suites.add(suiteName(turns[0]!.target), questionCase(run.suiteName, turns));
    turns = [];
  };
  // Unfinished items with turns, by key: the few that the export lists; those without a turn come from the items.
  const unfinished = new Set<string>();
  const key = (target: string, id: string, repeat: number) => JSON.stringify([target, id, repeat]);
  for (const t of iterateQuestionExport(db, run.id)) {
    if (turns.length > 0 && turns[0]!.itemKey !== t.itemKey) flush();
    if (t.itemStatus !== 'done') unfinished.add(key(t.target, t.suiteItemId, t.repeat));
    // The export reuses nothing between rows, so keeping them is safe; an item has a handful of turns.
    turns.push(t);
  }
  flush();
  for (const item of iterateItemVerdicts(db, run.id)) {
    if (item.kind !== 'question' || item.status === 'done' || unfinished.has(key(item.target, item.suiteItemId, item.repeat))) continue;
    suites.add(suiteName(item.target), {
      classname: `${run.suiteName}.${item.target}.questions`,
      name: `${item.suiteItemId} [repeat ${item.repeat}]`,
      seconds: 0,
      error: outcomeError('question', (item.outcome ?? item.status) as VerdictOutcome, null, ''),
    });
  }
  for (const s of iterateSearchExport(db, run.id)) {
    suites.add(suiteName(s.target), {
      classname: `${run.suiteName}.${s.target}.searches`,
      name: `${s.suiteItemId} [repeat ${s.repeat}]`,
      seconds: (s.durationMs ?? s.wallMs) / 1000,
      error: withTrace(outcomeError('search', outcomeOf(s), s.httpStatus, [s.verdict, s.error ?? s.alert].filter(Boolean).join(': ')), traceLink(s)),
      failure: withTrace(checksFailure(s.expectations), traceLink(s)),
    });
  }
  for (const r of runThresholdResults(db, run)) {
    const detail = `${thresholdName(r)}: ${formatThresholdValue(r.metric, r.value)}, ${thresholdVerdict(r)}`;
    suites.add(`${run.suiteName} / thresholds`, {
      classname: `${run.suiteName}.thresholds`,
      name: thresholdName(r),
      seconds: 0,
      failure: r.passed ? undefined : { type: 'threshold', message: detail, body: detail },
    });
  }
  const xml = suites.xml(`dsbench run ${run.id}${run.label ? ` (${run.label})` : ''}: ${run.suiteName}`, run.startedAt);
  return { xml, ...suites.totals() };
}

export function writeRunJunit(db: Database.Database, run: RunRecord, file: string): void {
  writeJunitFile(file, runJunit(db, run).xml);
}

/** The JUnit file of `report --junit`, as a sink of the report: it reads the run in a pass of its own, in plan order. */
export class RunJunit implements RunSink {
  readonly files: string[];
  private readonly db: Database.Database;

  constructor(o: RunSinkOptions) {
    this.db = o.db;
    this.files = [o.junit!];
  }

  end(result: ReportResult): void {
    writeRunJunit(this.db, result.data.run, this.files[0]!);
  }
}
