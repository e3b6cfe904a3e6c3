import { describe, expect, it } from 'vitest';
import { citesRecallCheck } from '../../src/grade/recall.js';
import type { CheckedCitation } from '../../src/model/grading.js';

const cited = (path: string, status: CheckedCitation['status'] = 'valid'): CheckedCitation => ({
  kind: 'file',
  repository: 'github.com/acme/lib',
  path,
  origin: 'answer',
  link: `/github.com/acme/lib/-/blob/${path}`,
  status,
  reason: status === 'valid' ? 'file exists' : 'file not found',
});

describe('citesRecall', () => {
  const files = ['src/a.js', 'src/b.js', 'src/c.js', 'src/d.js', 'src/e.js', 'src/f.js', 'src/g.js'];

  it('passes at the share asked for, counting citations that resolve, matched as cites: paths are (a suffix, whole segments)', () => {
    const checked = [cited('src/a.js'), cited('src/b.js'), cited('src/c.js'), cited('src/d.js')];
    expect(citesRecallCheck({ files, min: 0.5 }, '', checked)).toEqual({ passed: true, reason: 'recall 4/7 files cited (57%), at least 50% expected' });
  });

  it('fails below it and names the files not cited; a citation that does not resolve does not count', () => {
    const checked = [cited('src/a.js'), cited('lib/b.js'), cited('lib/src/e.js'), cited('src/c.js', 'invalid')];
    expect(citesRecallCheck({ files, min: 0.5 }, '', checked)).toEqual({
      passed: false,
      reason: 'recall 2/7 files cited (29%), at least 50% expected; not cited: src/b.js, src/c.js, src/d.js, src/f.js, src/g.js',
    });
  });
});
