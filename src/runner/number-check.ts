import { toleranceOf, type NumberCheck } from '../config/generated-schema.js';

/*
 * The numbers an answer states, read by fixed rules (docs/generate.md#the-number-check):
 * - what is not prose is left out first: fenced code blocks, inline code, link targets `](…)` and bare URLs;
 * - a number is digits standing alone: `12`, `1,234` (thousands separators), `3.5`; digits that are part
 *   of a word, a path, a version or a line reference (`utf8`, `v2`, `retry-handler.js:87`, `L10`, `#3`)
 *   are not numbers;
 * - the words zero to twenty count too (`seven files`), in any case;
 * - the check passes when any number stated is within the tolerance of the expected one.
 */

const NOT_PROSE = [/```[\s\S]*?(?:```|$)/g, /`[^`\n]*`/g, /\]\([^)\s]*\)/g, /\bhttps?:\/\/\S+/g];
const DIGITS = /(?<![\w$./:#@-])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w$/@]|[.:,-]\w)/g;
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty'];
const NUMBER_WORD = new RegExp(`\\b(${WORDS.join('|')})\\b`, 'gi');

/** The numbers an answer states, in order of appearance. */
export function statedNumbers(answer: string): number[] {
  const prose = NOT_PROSE.reduce((text, re) => text.replace(re, ' '), answer);
  const found: Array<{ at: number; value: number }> = [];
  for (const m of prose.matchAll(DIGITS)) found.push({ at: m.index, value: Number(`${m[1]!.replace(/,/g, '')}${m[2] ?? ''}`) });
  for (const m of prose.matchAll(NUMBER_WORD)) found.push({ at: m.index, value: WORDS.indexOf(m[1]!.toLowerCase()) });
  return found.sort((a, b) => a.at - b.at).map((f) => f.value);
}

/** The `number` check of one answer: the number found closest to the expected one, and whether it is close enough. */
export function numberCheck(check: NumberCheck, answer: string | undefined, state: string): { passed: boolean; reason: string } {
  const tolerance = toleranceOf(check.tolerance, check.expected);
  const expected = `expected ${check.expected}${tolerance > 0 ? ` ± ${check.tolerance}` : ''}`;
  if (answer === undefined) return { passed: false, reason: `no answer to read a number from: the turn ended ${state}; ${expected}` };
  const numbers = statedNumbers(answer);
  if (numbers.length === 0) return { passed: false, reason: `the answer states no number; ${expected}` };
  const closest = numbers.reduce((best, n) => (Math.abs(n - check.expected) < Math.abs(best - check.expected) ? n : best));
  const passed = Math.abs(closest - check.expected) <= tolerance;
  const others = numbers.length > 1 ? ` (of ${numbers.length} numbers stated)` : '';
  return { passed, reason: `found ${closest}${others}, ${expected}` };
}
