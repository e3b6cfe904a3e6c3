import { describe, expect, it } from 'vitest';
import { citationLabel, extractCitations, lineCount } from '../../src/grade/links.js';

describe('extractCitations', () => {
  it('reads blob links with ?L and #L ranges, absolute or relative, and sources', () => {
    const answer = [
      'See [a.js:10](http://127.0.0.1:3/github.com/npm/undici/-/blob/lib/a.js#L10),',
      '/github.com/x/y/-/blob/src/b.ts?L7-3 and again [b](/github.com/x/y/-/blob/src/b.ts?L3-7).',
      'Also https://h.example/github.com/x/y/-/blob/README.md.',
    ].join('\n');
    const found = extractCitations(answer, [{ link: '/github.com/npm/undici' }, { link: 'https://h/github.com/a/b/-/blob/x.go#L2:1-4:2' }, { link: 'not a repo' }]);
    expect(found.map(citationLabel)).toEqual([
      'github.com/npm/undici/lib/a.js#L10',
      'github.com/x/y/src/b.ts#L3-7',
      'github.com/x/y/README.md',
      'github.com/npm/undici',
      'github.com/a/b/x.go#L2-4',
    ]);
    expect(found.map((c) => c.origin)).toEqual(['answer', 'answer', 'answer', 'source', 'source']);
  });

  it('finds nothing in plain prose', () => {
    expect(extractCitations('The RetryHandler lives in lib/handler.')).toEqual([]);
  });

  it('counts lines like an editor', () => {
    expect([lineCount(''), lineCount('a'), lineCount('a\n'), lineCount('a\nb')]).toEqual([0, 1, 1, 2]);
  });
});
