import { type Case, Suites, writeJunitFile } from '../junit-xml.js';
import type { ComparePair, CompareResult, CompareSink, CompareSinkOptions } from './compare-result.js';
import type { Verdict } from './gates.js';
import type { CompareRow } from './pairs.js';
import { gateOutcome } from './verdict.js';

/**
 * The comparison as JUnit: a test case per gate, and one per pair; a pair fails only when a gate that is on
 * judges it (a new error under new-errors; a check that newly fails under verdict-changes, or under a failed
 * pass-rate gate), so the failures shown are what made the exit code.
 */
export class CompareJunit implements CompareSink {
  readonly files: string[];
  private readonly suites = new Suites();
  /** Pairs a gate may judge, kept until the gates are known. */
  private readonly pending: CompareRow[] = [];
  /** Rows of items edited under the same id: skipped unless the gates judged them. */
  private readonly edited: CompareRow[] = [];

  constructor(o: CompareSinkOptions) {
    this.files = [o.junit!];
    this.suites.reserve('gates');
  }

  row({ row }: ComparePair): void {
    if (row.edited) this.edited.push(row);
    else if (row.stateChange === 'new_error' || row.expectChange === 'new_failure') this.pending.push(row);
    else this.suites.add('pairs', pairCase(row, undefined));
  }

  end(result: CompareResult): void {
    writeJunitFile(this.files[0]!, this.xml(result));
  }

  private xml(result: CompareResult): string {
    const on = (name: string) => result.summary.gates.some((g) => g.name === name && g.enabled);
    const failed = (name: string) => result.summary.gates.some((g) => g.name === name && g.enabled && g.failed);
    for (const g of result.summary.gates) {
      // A gate that is off or judged nothing is skipped, with the words the other outputs give it: never a pass.
      const skipped = g.notJudged !== undefined || !g.enabled ? `${gateOutcome(g)}${g.enabled ? '' : ' (off)'}: ${g.detail}` : undefined;
      this.suites.add('gates', { classname: 'compare.gates', name: g.name, seconds: 0, failure: g.enabled && g.failed ? { type: 'gate', message: `${g.name}: ${g.detail}`, body: g.detail } : undefined, skipped });
    }
    this.suites.add('gates', verdictCase(result.verdict, result.verdictLine));
    if (result.nothingCompared) {
      this.suites.add('gates', { classname: 'compare.gates', name: 'something to compare', seconds: 0, error: { type: 'nothing_compared', message: result.nothingCompared, body: result.nothingCompared } });
    }
    const judged = result.summary.edited.inGates;
    for (const row of this.edited) {
      if (judged && (row.stateChange === 'new_error' || row.expectChange === 'new_failure')) this.pending.push(row);
      else this.suites.add('pairs', { ...pairCase(row, undefined), ...(!judged && { skipped: 'edited under the same id: judged by no gate (--include-edited judges it)' }) });
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

/** The verdict as a test case: regressed a failure, suspect a failure of its own type, undecided an error, unchanged a pass. */
export function verdictCase(verdict: Verdict, line: string): Case {
  const problem = { type: verdict, message: line, body: line };
  return {
    classname: 'compare.gates',
    name: 'verdict',
    seconds: 0,
    failure: verdict === 'regressed' || verdict === 'suspect' ? problem : undefined,
    error: verdict === 'undecided' ? problem : undefined,
  };
}

function pairCase(row: CompareRow, failure: Case['failure']): Case {
  const turn = row.turn === null ? '' : ` turn ${row.turn}`;
  const target = row.targetCandidate ?? row.targetBaseline ?? '';
  // The candidate's trace (run --trace), where the reader of a CI log looks first.
  const traced = failure && row.traceUrlCandidate ? { ...failure, message: `${failure.message} (trace: ${row.traceUrlCandidate})`, body: `${failure.body}\ntrace: ${row.traceUrlCandidate}` } : failure;
  return { classname: `compare.${row.kind}s${target ? `.${target}` : ''}`, name: `${row.itemId} [repeat ${row.repeat}]${turn}`, seconds: (row.latencyCandidate ?? 0) / 1000, failure: traced };
}
