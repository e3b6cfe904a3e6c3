import { describe, expect, it } from 'vitest';
import { QuerySyntaxError } from '../../../src/emulator/corpus/errors.js';
import { parseQuery, type Pattern } from '../../../src/emulator/corpus/query.js';
import { findRanges } from '../../../src/emulator/corpus/ranges.js';

/** A readable form of a pattern tree. */
function show(p: Pattern | null): string {
  if (!p) return '-';
  switch (p.kind) {
    case 'term':
      return `/${p.regexp.source}/${p.regexp.flags}`;
    case 'not':
      return `NOT ${show(p.child)}`;
    default:
      return `${p.kind}(${p.children.map(show).join(' ')})`;
  }
}

describe('parseQuery', () => {
  it('reads filters and their defaults', () => {
    const q = parseQuery('repo:^github\\.com/a -repo:b file:\\.ts$ -f:test lang:ts -l:json count:50 type:path timeout:1m30s');
    expect(q.repo.map((r) => r.source)).toEqual(['^github\\.com\\/a']);
    expect(q.notRepo.map((r) => r.source)).toEqual(['b']);
    expect(q.file.map((r) => [r.source, r.flags])).toEqual([['\\.ts$', 'i']]);
    expect(q.notFile.map((r) => r.source)).toEqual(['test']);
    expect([q.lang, q.notLang]).toEqual([['TypeScript'], ['JSON']]);
    expect([q.count, q.type, q.timeoutMs, q.archived, q.fork, q.caseSensitive]).toEqual([50, 'path', 90_000, 'no', 'no', false]);
    expect(q.pattern).toBeNull();
    const d = parseQuery('x');
    expect([d.count, d.type, d.timeoutMs, d.patternType]).toEqual([undefined, undefined, undefined, 'standard']);
    expect(parseQuery('count:all archived:only fork:YES context:global x')).toMatchObject({ count: 'all', archived: 'only', fork: 'yes' });
  });

  it('ANDs terms, honours quotes, regexps and operators', () => {
    expect(show(parseQuery('foo bar').pattern)).toBe('and(/foo/gim /bar/gim)');
    expect(show(parseQuery('"foo bar" /a.b/').pattern)).toBe('and(/foo bar/gim /a.b/gim)');
    expect(show(parseQuery('a.b').pattern)).toBe('/a\\.b/gim');
    expect(show(parseQuery('a.b', 'regexp').pattern)).toBe('/a.b/gim');
    expect(show(parseQuery('patternType:literal /a/').pattern)).toBe('/\\/a\\//gim');
    expect(show(parseQuery('case:yes a or b and c').pattern)).toBe('or(/a/gm and(/b/gm /c/gm))');
    expect(show(parseQuery('a (b OR c) NOT d').pattern)).toBe('and(/a/gim or(/b/gim /c/gim) NOT /d/gim)');
    expect(show(parseQuery('foo() "say \\"hi\\""').pattern)).toBe('and(/foo\\(\\)/gim /say "hi"/gim)');
    expect(show(parseQuery('http://x.y/z foo:bar').pattern)).toBe('and(/http:\\/\\/x\\.y\\/z/gim /foo:bar/gim)');
  });

  it.each([
    ['(a', /unbalanced/],
    [') a', /unbalanced/],
    ['()', /empty parentheses/],
    ['"open', /unterminated/],
    ['/(/', /invalid regular expression/],
    ['[', /invalid regular expression/],
    ['a OR', /OR needs/],
    ['AND a', /AND needs/],
    ['a NOT', /NOT needs/],
    ['a OR repo:x', /OR needs/],
    ['(repo:x a)', /inside parentheses/],
    ['type:diff a', /not supported/],
    ['type:nope a', /invalid value/],
    ['count:0 a', /invalid count/],
    ['count:1 count:2 a', /only once/],
    ['-case:yes a', /cannot be negated/],
    ['repo: a', /needs a value/],
    ['lang:cobolt a', /unknown language/],
    ['timeout:soon a', /invalid timeout/],
    ['patternType:fuzzy a', /invalid value/],
    ['context:mine a', /context/],
  ])('rejects %s', (input, message) => {
    expect(() => parseQuery(input, input === '[' ? 'regexp' : 'standard')).toThrow(QuerySyntaxError);
    expect(() => parseQuery(input, input === '[' ? 'regexp' : 'standard')).toThrow(message);
  });
});

describe('findRanges', () => {
  const ranges = (q: string, text: string) => findRanges(parseQuery(q).pattern!, text);

  it('reports every occurrence of the terms that made a file match', () => {
    expect(ranges('ab', 'xabyAB')).toEqual([[1, 3], [4, 6]]);
    expect(ranges('b a', 'ab')).toEqual([[0, 1], [1, 2]]);
    expect(ranges('a b', 'aaa')).toBeNull();
    expect(ranges('a OR z', 'ab')).toEqual([[0, 1]]);
    expect(ranges('NOT z', 'ab')).toEqual([]);
    expect(ranges('/x*/', 'abc')).toBeNull();
    expect(ranges('/^b/', 'a\nb')).toEqual([[2, 3]]);
  });
});
