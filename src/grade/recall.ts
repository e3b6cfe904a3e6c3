import type { CitesRecall } from '../config/generated-schema.js';
import { citesChecks } from './citations.js';
import type { CheckedCitation } from '../model/grading.js';

/** Files not cited that a failing check names; the rest are counted. */
const NAMED_MISSING = 5;

/**
 * Recall over a list of files (`citesRecall`): each file is matched as a path of `cites` is (through
 * citesChecks, so both follow one reading of citations); the check passes when the share cited reaches `min`.
 */
export function citesRecallCheck(spec: CitesRecall, answer: string, checked: CheckedCitation[]): { passed: boolean; reason: string } {
  const results = citesChecks(spec.files, answer, checked);
  const missing = spec.files.filter((_, i) => !results[i]!.passed);
  const found = spec.files.length - missing.length;
  const share = found / spec.files.length;
  const passed = share >= spec.min;
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  const notCited =
    missing.length === 0 || passed
      ? ''
      : `; not cited: ${missing.slice(0, NAMED_MISSING).join(', ')}${missing.length > NAMED_MISSING ? ` and ${missing.length - NAMED_MISSING} more` : ''}`;
  return { passed, reason: `recall ${found}/${spec.files.length} files cited (${pct(share)}), at least ${pct(spec.min)} expected${notCited}` };
}
