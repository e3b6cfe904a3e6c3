import { describe, expect, it } from 'vitest';
import { numberCheck, statedNumbers } from '../../src/runner/number-check.js';

describe('the number check', () => {
  it('reads numbers from prose, not from code, links, paths, versions or line references', () => {
    const answer = [
      '`Scalar` appears in 1,234 files; about 3.5 per folder, seven of them tests.',
      'See [lib/x.js:87](https://host/r/-/blob/lib/x.js?L87-90) and `const n = 42`, utf8, v2, L10, #3, retry-handler.js:12.',
      '```js\nconst x = 99\n```',
      'Versions 1.2.3 and ranges 3-5 are not counts; https://example.com/55 is a link. Twelve.',
    ].join('\n');
    expect(statedNumbers(answer)).toEqual([1234, 3.5, 7, 12]);
  });

  it('passes when a number stated is within the tolerance, and says what it found', () => {
    const check = (expected: number, tolerance: number | string, answer: string | undefined, state = 'completed') => numberCheck({ expected, tolerance }, answer, state);
    expect(check(12, 0, 'There are 12 files (I ran 3 searches).')).toEqual({ passed: true, reason: 'found 12 (of 2 numbers stated), expected 12' });
    expect(check(12, 0, 'There are 13 files.')).toEqual({ passed: false, reason: 'found 13, expected 12' });
    expect(check(20, '10%', 'There are 22 files.')).toEqual({ passed: true, reason: 'found 22, expected 20 ± 10%' });
    expect(check(20, '10%', 'There are 23 files.').passed).toBe(false);
    expect(check(20, 2, 'Nothing to count here.')).toEqual({ passed: false, reason: 'the answer states no number; expected 20 ± 2' });
    expect(check(20, 2, undefined, 'error')).toEqual({ passed: false, reason: 'no answer to read a number from: the turn ended error; expected 20 ± 2' });
  });
});
