import { describe, expect, it } from 'vitest';
import { parseSuite } from '../../src/config/load-suite.js';
import { compilePattern } from '../../src/config/pattern.js';
import type { ResolvedQuestion, ResolvedSearch } from '../../src/config/resolve-suite.js';

const MINIMAL = ['name: smoke', 'questions:', '  - { id: q, question: Where? }', 'searches:', '  - { id: s, query: fetch }'].join('\n');

describe('resolving a suite', () => {
  it('fills every default', () => {
    const { resolved } = parseSuite(MINIMAL, 'smoke.yaml');
    expect(resolved).toEqual({
      name: 'smoke',
      concurrency: 4,
      searchConcurrency: 2,
      judge: { endpoint: 'instance', minScore: 0.6, during: 'run', concurrency: 2, citations: true, citationConcurrency: 4, explicit: false },
      thresholds: {},
      questions: [
        {
          kind: 'question',
          id: 'q',
          text: 'Where?',
          followups: [],
          tags: [],
          repeats: 1,
          timeoutMs: 300_000,
          api: 'versioned',
          poll: { strategy: 'adaptive', intervalMs: 3_000, minMs: 1_000, maxMs: 15_000 },
          expect: {},
        } satisfies ResolvedQuestion,
      ],
      searches: [{ kind: 'search', id: 's', query: 'fetch', tags: [], repeats: 1, timeoutMs: 60_000, expect: {} } satisfies ResolvedSearch],
    });
  });

  it('merges defaults with what each item sets', () => {
    const text = [
      'name: smoke',
      'description: merging',
      'defaults:',
      '  api: legacy',
      '  repeats: 3',
      '  timeout: 10m',
      '  concurrency: 8',
      '  searchConcurrency: 1',
      '  poll: { strategy: fixed, interval: 500ms }',
      '  tags: [nightly, http]',
      '  searchTimeout: 1m30s',
      'questions:',
      '  - { id: q1, question: A?, tags: [http, retry], repeats: 1, timeout: 45 }',
      '  - { id: q2, question: B? }',
      'searches:',
      '  - { id: s1, query: a, tags: [exhaustive], timeout: 5s, repeats: 2, patternType: regexp, chunkMatches: false, contextLines: 0, display: -1, maxLineLength: 200 }',
      '  - { id: s2, query: b }',
    ].join('\n');
    const { suite, resolved } = parseSuite(text, 'smoke.yaml');
    expect(suite.defaults).toMatchObject({ timeoutMs: 600_000, searchTimeoutMs: 90_000 });
    expect(resolved).toMatchObject({ description: 'merging', concurrency: 8, searchConcurrency: 1 });
    const [q1, q2] = resolved.questions;
    expect(q1).toMatchObject({ api: 'legacy', tags: ['nightly', 'http', 'retry'], repeats: 1, timeoutMs: 45_000 });
    expect(q2).toMatchObject({ tags: ['nightly', 'http'], repeats: 3, timeoutMs: 600_000 });
    expect(q2?.poll).toEqual({ strategy: 'fixed', intervalMs: 500, minMs: 1_000, maxMs: 15_000 });
    const [s1, s2] = resolved.searches;
    expect(s1).toEqual({
      kind: 'search',
      id: 's1',
      query: 'a',
      patternType: 'regexp',
      chunkMatches: false,
      contextLines: 0,
      display: -1,
      maxLineLength: 200,
      tags: ['nightly', 'http', 'exhaustive'],
      repeats: 2,
      timeoutMs: 5_000,
      expect: {},
    });
    expect(s2).toMatchObject({ tags: ['nightly', 'http'], repeats: 3, timeoutMs: 90_000 });
  });

  it('normalizes follow-ups to objects and one-or-many fields to lists', () => {
    const text = [
      'name: smoke',
      'questions:',
      '  - id: q',
      '    question: Where is the retry policy?',
      '    followups:',
      '      - Which status codes?',
      '      - question: And the backoff?',
      '        expect: { contains: backoff, state: completed }',
      '    expect:',
      '      contains: retry',
      '      notContains: ["I don\'t know", sorry]',
      '      matches: /retr(y|ies)/i',
      '      sourcesInclude: github.com/npm/undici',
      '      errorCode: TOKEN_LIMIT_EXCEEDED',
    ].join('\n');
    const question = parseSuite(text, 'smoke.yaml').resolved.questions[0];
    expect(question?.followups).toEqual([
      { text: 'Which status codes?', expect: {} },
      { text: 'And the backoff?', expect: { contains: ['backoff'], state: 'completed' } },
    ]);
    expect(question?.expect).toEqual({
      contains: ['retry'],
      notContains: ["I don't know", 'sorry'],
      matches: ['/retr(y|ies)/i'],
      sourcesInclude: ['github.com/npm/undici'],
      errorCode: 'TOKEN_LIMIT_EXCEEDED',
    });
  });

  it('gives each item its own poll policy object', () => {
    const [a, b] = parseSuite(MINIMAL.replace('searches:', '  - { id: q2, question: Again? }\nsearches:'), 'smoke.yaml').resolved.questions;
    expect(a?.poll).toEqual(b?.poll);
    expect(a?.poll).not.toBe(b?.poll);
  });
});

describe('expectation patterns', () => {
  it('compiles plain and slashed forms', () => {
    expect(compilePattern('retr(y|ies)').test('retries')).toBe(true);
    expect(compilePattern('retry').test('RETRY')).toBe(false);
    expect(compilePattern('/retry/i').test('RETRY')).toBe(true);
    expect(compilePattern('/a/b/').source).toBe('a\\/b');
  });

  it('rejects stateful flags and bad syntax without V8 prefixes', () => {
    expect(() => compilePattern('/x/g')).toThrow('unsupported flags "g"');
    expect(() => compilePattern('a)')).toThrow(/^Unmatched '\)'$/);
  });
});
