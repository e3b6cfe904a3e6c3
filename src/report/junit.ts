import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { redact } from '../http/redact.js';
import { ExitCode } from '../errors/exit-codes.js';
import { itemExitCode, type VerdictOutcome } from '../model/verdict.js';
import { type ExpectationRecord, type QuestionExportRow, type RunRecord, iterateItemVerdicts, iterateQuestionExport, iterateSearchExport } from '../store/queries.js';
import type { CompareResult } from './compare/compare.js';
import type { CompareRow } from './compare/pairs.js';
import { formatThresholdValue, runThresholdResults, thresholdName, thresholdVerdict } from './thresholds.js';

// JUnit XML for CI systems (GitHub, GitLab, Jenkins read the same subset): <testsuites> of <testsuite>,
// each <testcase> with at most one <failure> (a check failed, a gate failed) or <error> (the item did not
// get an answer it could be judged on). One test case per item of a run and per threshold of its suite; per
// gate and per pair of a comparison.

// XML 1.0 forbids most control characters even escaped.
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

export function xmlText(text: string): string {
  return redact(text).replace(INVALID_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const oneLine = (text: string, max = 500): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

interface Case {
  classname: string;
  name: string;
  seconds: number;
  failure?: { type: string; message: string; body: string } | undefined;
  error?: { type: string; message: string; body: string } | undefined;
}

function caseXml(c: Case): string {
  const open = `    <testcase classname="${xmlText(c.classname)}" name="${xmlText(c.name)}" time="${c.seconds.toFixed(3)}"`;
  const problem = c.error ? ['error', c.error] : c.failure ? ['failure', c.failure] : undefined;
  if (!problem) return `${open}/>\n`;
  const [tag, p] = problem as [string, { type: string; message: string; body: string }];
  return `${open}>\n      <${tag} type="${xmlText(p.type)}" message="${xmlText(oneLine(p.message))}">${xmlText(p.body)}</${tag}>\n    </testcase>\n`;
}

class Suites {
  private readonly suites = new Map<string, { cases: string[]; failures: number; errors: number; seconds: number }>();

  /** Fixes a suite's place in the output before its cases are known. */
  reserve(suite: string) {
    let s = this.suites.get(suite);
    if (!s) this.suites.set(suite, (s = { cases: [], failures: 0, errors: 0, seconds: 0 }));
    return s;
  }

  add(suite: string, c: Case): void {
    const s = this.reserve(suite);
    s.cases.push(caseXml(c));
    if (c.error) s.errors++;
    else if (c.failure) s.failures++;
    s.seconds += c.seconds;
  }

  totals(): { tests: number; failures: number; errors: number } {
    let tests = 0;
    let failures = 0;
    let errors = 0;
    for (const s of this.suites.values()) {
      tests += s.cases.length;
      failures += s.failures;
      errors += s.errors;
    }
    return { tests, failures, errors };
  }

  xml(name: string, timestamp: string): string {
    const t = this.totals();
    const seconds = [...this.suites.values()].reduce((sum, s) => sum + s.seconds, 0);
    const parts = [`<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xmlText(name)}" tests="${t.tests}" failures="${t.failures}" errors="${t.errors}" time="${seconds.toFixed(3)}">\n`];
    let id = 0;
    for (const [suite, s] of this.suites) {
      parts.push(
        `  <testsuite name="${xmlText(suite)}" id="${id++}" tests="${s.cases.length}" failures="${s.failures}" errors="${s.errors}" skipped="0" time="${s.seconds.toFixed(3)}" timestamp="${xmlText(timestamp.replace(/\.\d+Z$/, ''))}">\n`,
        ...s.cases,
        '  </testsuite>\n',
      );
    }
    parts.push('</testsuites>\n');
    return parts.join('');
  }
}

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
  return {
    classname: `${suite}.${first.target}.questions`,
    name: `${first.suiteItemId} [repeat ${first.repeat}]`,
    seconds,
    error: outcomeError('question', outcomeOf(first), null, detail),
    failure: checksFailure(first.expectations),
  };
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
      error: outcomeError('search', outcomeOf(s), s.httpStatus, [s.verdict, s.error ?? s.alert].filter(Boolean).join(': ')),
      failure: checksFailure(s.expectations),
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

export function writeJunitFile(file: string, xml: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, xml);
}

/**
 * The comparison as JUnit: a test case per gate, and one per pair; a pair fails only when a gate that is on
 * judges it (a new error under new-errors; a check that newly fails under verdict-changes, or under a failed
 * pass-rate gate), so the failures shown are what made the exit code.
 */
export class CompareJunit {
  private readonly suites = new Suites();
  /** Pairs a gate may judge, kept until the gates are known. */
  private readonly pending: CompareRow[] = [];

  constructor() {
    this.suites.reserve('gates');
  }

  add(row: CompareRow): void {
    if (row.stateChange === 'new_error' || row.expectChange === 'new_failure') this.pending.push(row);
    else this.suites.add('pairs', pairCase(row, undefined));
  }

  xml(result: CompareResult): string {
    const on = (name: string) => result.summary.gates.some((g) => g.name === name && g.enabled);
    const failed = (name: string) => result.summary.gates.some((g) => g.name === name && g.enabled && g.failed);
    for (const g of result.summary.gates) {
      this.suites.add('gates', { classname: 'compare.gates', name: g.name, seconds: 0, failure: g.enabled && g.failed ? { type: 'gate', message: `${g.name}: ${g.detail}`, body: g.detail } : undefined });
    }
    if (result.nothingCompared) {
      this.suites.add('gates', { classname: 'compare.gates', name: 'something to compare', seconds: 0, error: { type: 'nothing_compared', message: result.nothingCompared, body: result.nothingCompared } });
    }
    for (const row of this.pending) {
      let failure: Case['failure'];
      if (row.stateChange === 'new_error' && (on('any-new-error') || failed('new-errors'))) {
        const now = `${row.stateCandidate}${row.errorCodeCandidate ? ` (${row.errorCodeCandidate})` : ''}`;
        failure = { type: 'new_error', message: `new error: ${row.stateBaseline} in the baseline, ${now} in the candidate`, body: `baseline ${row.stateBaseline}, candidate ${now}` };
      } else if (row.expectChange === 'new_failure' && (on('verdict-changes') || failed('pass-rate'))) {
        failure = { type: 'new_failure', message: 'checks passed in the baseline and fail in the candidate', body: `expectations: baseline ${row.expectBaseline}, candidate ${row.expectCandidate}` };
      }
      this.suites.add('pairs', pairCase(row, failure));
    }
    return this.suites.xml(`dsbench compare run ${result.baseline.run.id} vs run ${result.candidate.run.id}`, new Date().toISOString());
  }
}

function pairCase(row: CompareRow, failure: Case['failure']): Case {
  const turn = row.turn === null ? '' : ` turn ${row.turn}`;
  const target = row.targetCandidate ?? row.targetBaseline ?? '';
  return { classname: `compare.${row.kind}s${target ? `.${target}` : ''}`, name: `${row.itemId} [repeat ${row.repeat}]${turn}`, seconds: (row.latencyCandidate ?? 0) / 1000, failure };
}
