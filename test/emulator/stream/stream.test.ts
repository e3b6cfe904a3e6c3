import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARCHIVED,
  countOf,
  FILES,
  FORKS,
  finalProgress,
  json,
  makeCorpusDir,
  matchesOf,
  openCorpus,
  removeDir,
  startServer,
  stream,
  type TestServer,
} from './harness.js';
import { toWire } from '../../../src/emulator/stream/matches.js';

let dir: string;
let server: TestServer;

beforeAll(async () => {
  dir = makeCorpusDir();
  server = await startServer({ corpus: await openCorpus(dir) });
});

afterAll(async () => {
  await server.close();
  removeDir(dir);
});

const search = (q: string, params: Record<string, string> = {}) => stream(server.url, { q, ...params });

describe('framing and event order', () => {
  it('sends the headers and ends with filters, matches, final progress, done', async () => {
    const { status, headers, events } = await search('retry');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('text/event-stream');
    expect(headers.get('cache-control')).toBe('no-cache');
    expect(headers.get('x-accel-buffering')).toBe('no');
    expect(headers.get('content-encoding')).toBeNull();
    const names = events.map((e) => e.event);
    expect(names.at(-1)).toBe('done');
    expect(events.at(-1)!.data).toBe('{}');
    expect(names.at(-2)).toBe('progress');
    // The first batch goes out with its filters first (a tick before it may have sent exclusions).
    expect(names[names.indexOf('matches') - 1]).toBe('filters');
    const lastFilters = names.lastIndexOf('filters');
    expect(lastFilters).toBeGreaterThan(0);
    expect(names.slice(lastFilters)).toEqual(['filters', 'matches', 'progress', 'done']);
    for (const e of events) json(e);
    const progress = events.filter((e) => e.event === 'progress').map((e) => json(e));
    expect(progress.filter((p) => 'repositoriesCount' in p)).toEqual([progress.at(-1)]);
    expect(progress.at(-1)).toMatchObject({ done: true, repositoriesCount: 2 });
    expect(Array.isArray(progress.at(-1).skipped)).toBe(true);
  });

  it('gives content matches every platform field, with 0-based line matches', async () => {
    const matches = matchesOf((await search('count:all fetchData')).events);
    expect(matches).toHaveLength(1);
    const m = matches[0];
    expect(Object.keys(m)).toEqual([
      'type', 'path', 'repositoryID', 'repository', 'repoStars', 'repoLastFetched', 'branches', 'commit', 'hunks', 'lineMatches', 'language',
    ]);
    expect(m).toMatchObject({ type: 'content', path: 'src/main.ts', repository: 'github.com/acme/app', branches: [''], hunks: null, language: 'TypeScript' });
    expect(m.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Number.isInteger(m.repositoryID)).toBe(true);
    expect(new Date(m.repoLastFetched).toISOString()).toBe(m.repoLastFetched);
    expect(m.lineMatches).toEqual([{ line: '  return retry(() => fetchData(), 3);', lineNumber: 2, offsetAndLengths: [[21, 9]] }]);
  });

  it('reports line match offsets that point at the pattern in the file', async () => {
    for (const m of matchesOf((await search('count:all retry', { 'max-line-len': '5' })).events)) {
      if (m.type !== 'content') continue;
      const lines = String(FILES[`${m.repository}/${m.path}`]).split('\n');
      for (const lm of m.lineMatches) {
        expect(lm.line).toBe(lines[lm.lineNumber]);
        for (const [start, length] of lm.offsetAndLengths) expect(lm.line.slice(start, start + length).toLowerCase()).toBe('retry');
      }
    }
  });

  it('gives chunk matches with file-relative ranges and the asked context lines', async () => {
    const matches = matchesOf((await search('count:all file:retry\\.ts$ fn', { cm: 'true', cl: '0' })).events);
    expect(matches).toHaveLength(1);
    const text = String(FILES['github.com/acme/app/src/retry.ts']);
    const { chunkMatches, lineMatches } = matches[0];
    expect(lineMatches).toBeUndefined();
    expect(chunkMatches.length).toBeGreaterThan(0);
    for (const chunk of chunkMatches) {
      expect(text.slice(chunk.contentStart.offset, chunk.contentStart.offset + chunk.content.length)).toBe(chunk.content);
      expect(text.slice(0, chunk.contentStart.offset).split('\n').length - 1).toBe(chunk.contentStart.line);
      for (const { start, end } of chunk.ranges) {
        expect(text.slice(start.offset, end.offset)).toBe('fn');
        const before = text.slice(0, start.offset).split('\n');
        expect([start.line, start.column]).toEqual([before.length - 1, before.at(-1)!.length]);
        expect(end.line).toBe(start.line);
        expect(end.column - start.column).toBe(2);
      }
      expect(chunk.content.includes('\n')).toBe(false);
    }
    const withContext = matchesOf((await search('count:all file:retry\\.ts$ throw', { cm: 'true' })).events)[0].chunkMatches;
    expect(withContext).toHaveLength(1);
    expect(withContext[0].contentStart.line).toBe(3);
    expect(withContext[0].content.split('\n')).toEqual(['  }', '  throw new Error("RETRY failed after " + times);', '}']);
  });

  it('merges chunks whose context touches and truncates long lines with max-line-len', async () => {
    const { events } = await search('count:all file:long\\.md retry', { cm: '1', 'max-line-len': '8' });
    const [m] = matchesOf(events);
    expect(m.chunkMatches).toHaveLength(1);
    const chunk = m.chunkMatches[0];
    expect(chunk.content).toBe('intro\nretry re\noutro');
    expect(chunk.contentTruncated).toBe(true);
    expect(chunk.ranges).toHaveLength(20);
    expect(chunk.ranges[19].start).toEqual({ offset: 6 + 19 * 6, line: 1, column: 19 * 6 });
    const untruncated = matchesOf((await search('count:all file:long\\.md retry', { cm: '1' })).events)[0].chunkMatches[0];
    expect(untruncated.contentTruncated).toBeUndefined();
  });
});

/** Counts occurrences by reading the corpus folder directly, without the emulator's code. */
function expectedCount(terms: string[], caseSensitive = false): number {
  const norm = (s: string) => (caseSensitive ? s : s.toLowerCase());
  const occurrences = (text: string, term: string) => {
    let n = 0;
    for (const line of norm(text).split('\n')) {
      for (let i = line.indexOf(norm(term)); i !== -1; i = line.indexOf(norm(term), i + term.length)) n++;
    }
    return n;
  };
  let total = 0;
  const visit = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) visit(child);
      else {
        const [host, owner, name, ...rest] = child.split('/');
        const repo = `${host}/${owner}/${name}`;
        if (ARCHIVED.includes(repo) || FORKS.includes(repo)) continue;
        const bytes = readFileSync(path.join(dir, child));
        if (bytes.length > 1024 * 1024 || bytes.subarray(0, 8192).includes(0)) continue;
        const text = bytes.toString('utf8');
        const filePath = rest.join('/');
        const counts = terms.map((t) => occurrences(text, t));
        if (counts.every((c) => c > 0)) total += counts.reduce((a, b) => a + b, 0);
        else if (terms.every((t) => norm(filePath).includes(norm(t)))) total += 1;
      }
    }
  };
  visit('');
  return total;
}

describe('independent count', () => {
  it.each([
    ['count:all retry', ['retry'], false],
    ['count:all retry times', ['retry', 'times'], false],
    ['retry fn', ['retry', 'fn'], false],
    ['count:all case:yes Retry', ['Retry'], true],
    ['count:all "return retry"', ['return retry'], false],
    ['count:all README', ['README'], false],
  ] as const)('%s', async (q, terms, caseSensitive) => {
    const { events } = await search(q);
    const expected = expectedCount([...terms], caseSensitive);
    expect(expected).toBeGreaterThan(0);
    expect(finalProgress(events).matchCount).toBe(expected);
    expect(matchesOf(events).reduce((n, m) => n + countOf(m), 0)).toBe(expected);
  });
});

describe('query language', () => {
  const paths = async (q: string, params: Record<string, string> = {}) =>
    matchesOf((await search(q, params)).events).map((m) => `${m.type}:${m.repository ?? ''}/${m.path ?? ''}`);

  it('filters by repo, file and language, each also negated', async () => {
    expect(await paths('repo:acme/lib$ retry')).toEqual(['content:github.com/acme/lib/lib.py', 'content:github.com/acme/lib/native.c']);
    expect(await paths('-repo:app retry')).toEqual(['content:github.com/acme/lib/lib.py', 'content:github.com/acme/lib/native.c']);
    expect(await paths('file:\\.ts$ retry')).toEqual(['content:github.com/acme/app/src/main.ts', 'content:github.com/acme/app/src/retry.ts']);
    expect(await paths('-file:\\.(ts|md)$ retry')).toEqual(['content:github.com/acme/lib/lib.py', 'content:github.com/acme/lib/native.c']);
    expect(await paths('lang:python retry')).toEqual(['content:github.com/acme/lib/lib.py']);
    expect(await paths('lang:c -lang:python retry')).toEqual(['content:github.com/acme/lib/native.c']);
    expect(await paths('lang:py')).toEqual(['path:github.com/acme/lib/lib.py']);
  });

  it('supports regexps, pattern types, phrases and boolean operators', async () => {
    expect(await paths('/retry_\\w+/')).toEqual(['content:github.com/acme/lib/native.c']);
    expect(await paths('retry_\\w+', { t: 'regexp' })).toEqual(['content:github.com/acme/lib/native.c']);
    expect(await paths('patternType:regexp def\\s+retry')).toEqual(['content:github.com/acme/lib/lib.py']);
    expect(await paths('patternType:keyword def retry')).toEqual(['content:github.com/acme/lib/lib.py']);
    expect(await paths('"retry_count = 3"')).toEqual(['content:github.com/acme/lib/native.c']);
    expect(await paths('def OR retry_count')).toEqual(['content:github.com/acme/lib/lib.py', 'content:github.com/acme/lib/native.c']);
    expect(await paths('repo:lib retry NOT def')).toEqual(['content:github.com/acme/lib/native.c']);
    expect(await paths('(def OR "int ") AND retry')).toEqual(['content:github.com/acme/lib/lib.py', 'content:github.com/acme/lib/native.c']);
  });

  it('is case-insensitive unless case:yes', async () => {
    expect(await paths('RETRY_COUNT')).toEqual(['content:github.com/acme/lib/native.c']);
    expect(await paths('case:yes RETRY_COUNT')).toEqual([]);
    expect(await paths('case:yes RETRY file:retry')).toEqual(['content:github.com/acme/app/src/retry.ts']);
  });

  it('returns path and repo matches', async () => {
    const [pathMatch] = matchesOf((await search('type:path retry')).events);
    expect(pathMatch).toMatchObject({
      type: 'path',
      path: 'src/retry.ts',
      pathMatches: [{ start: { offset: 4, line: 0, column: 4 }, end: { offset: 9, line: 0, column: 9 } }],
    });
    expect(pathMatch.lineMatches).toBeUndefined();
    const [fileNameHit] = matchesOf((await search('readme')).events);
    expect(fileNameHit).toMatchObject({ type: 'path', path: 'README.md', repository: 'github.com/acme/app' });
    expect(await paths('type:file readme')).toEqual([]);
    const repos = matchesOf((await search('type:repo acme')).events);
    expect(repos.map((r) => r.repository)).toEqual(['github.com/acme/app', 'github.com/acme/lib']);
    expect(repos[0]).toMatchObject({ type: 'repo', repositoryMatches: [{ start: { offset: 11 }, end: { offset: 15 } }] });
    // omitempty: a repository's false flags and empty description are absent, not false or empty.
    for (const key of ['fork', 'archived', 'private', 'description']) expect(repos[0]).not.toHaveProperty(key);
    const archived = matchesOf((await search('archived:only type:repo old')).events);
    expect(archived[0]).toMatchObject({ repository: 'github.com/old/archive', archived: true });
    expect(archived[0]).not.toHaveProperty('fork');
    expect(matchesOf((await search('repo:lib')).events).map((r) => r.type)).toEqual(['repo']);
  });

  it.each(['(retry', ') retry', 'retry OR (x))', '/[/', 'type:bogus retry', 'lang:klingon x', 'count:abc x', 'timeout:5x x', 'repo:( x', 'archived:maybe x', 'foo OR', 'NOT'])(
    'alerts on the unparsable query %s',
    async (q) => {
      const { status, events } = await search(q);
      expect(status).toBe(200);
      expect(events.map((e) => e.event)).toEqual(['alert', 'done']);
      expect(json(events[0]!)).toMatchObject({ title: 'Unable To Process Query', proposedQueries: null });
      expect(json(events[0]!).description).toEqual(expect.any(String));
    },
  );
});

describe('request parameters', () => {
  it.each([
    [{ q: '' }, 'no query found'],
    [{ q: 'x', cl: '-1' }, 'cl'],
    [{ q: 'x', display: 'abc' }, 'display'],
    [{ q: 'x', 'max-line-len': '1.5' }, 'max-line-len'],
    [{ q: 'x', cm: 'maybe' }, 'cm'],
    [{ q: 'x', v: 'V9' }, 'version'],
    [{ q: 'x', t: 'fuzzy' }, 'patternType'],
  ])('%o gives an error event then done', async (params, message) => {
    const { status, events } = await stream(server.url, params);
    expect(status).toBe(200);
    expect(events.map((e) => e.event)).toEqual(['error', 'done']);
    expect(json(events[0]!).message).toContain(message);
  });

  it('accepts explicit defaults', async () => {
    const { events } = await search('retry_count', { v: 'V3', t: 'standard', cm: 'false', cl: '1', display: '-1', 'max-line-len': '-1' });
    expect(finalProgress(events).matchCount).toBe(1);
  });

  it('rejects other methods', async () => {
    const res = await fetch(`${server.url}?q=x`, { method: 'POST' });
    expect(res.status).toBe(405);
  });
});

describe('omitted fields and path matches', () => {
  it('leaves out an unknown language and highlights what file: matched in the path', async () => {
    const [content] = matchesOf((await search('count:all file:retry\\.ts$ throw')).events);
    expect(content).toMatchObject({ type: 'content', pathMatches: [{ start: { offset: 4 }, end: { offset: 12 } }] });
    const [path] = matchesOf((await search('file:native')).events);
    expect(path).toMatchObject({ type: 'path', path: 'native.c', pathMatches: [{ start: { offset: 0 }, end: { offset: 6 } }] });
    const repo = { ...(await (await openCorpus(dir)).repositories())[0]!, stars: 0 };
    const noLanguage = toWire({ type: 'path', repo, path: 'LICENSE', language: '', pathRanges: null }, { chunkMatches: false, contextLines: 0, maxLineLength: -1 });
    expect(Object.keys(noLanguage)).toEqual(['type', 'path', 'repositoryID', 'repository', 'repoLastFetched', 'branches', 'commit']);
  });
});

describe('pattern types', () => {
  it('accepts lucky like standard and structural with holes', async () => {
    const standard = await search('count:all fetchData');
    const lucky = await search('count:all fetchData', { t: 'lucky' });
    expect(matchesOf(lucky.events)).toEqual(matchesOf(standard.events));
    const structural = matchesOf((await search('count:all retry(:[fn],', { t: 'structural' })).events);
    expect(structural.map((m) => m.path)).toEqual(['src/main.ts']);
    expect(structural[0].lineMatches[0].line).toContain('retry(() => fetchData(), 3)');
    expect((await search('x', { t: 'fuzzy' })).events.map((e) => e.event)).toEqual(['error', 'done']);
  });
});

describe('symbol search', () => {
  it('matches the pattern against definition names, counts symbols, and cuts a file at the limit', async () => {
    const { events } = await search('type:symbol count:all retry');
    const matches = matchesOf(events);
    // Definitions named like the pattern, not mentions: main.ts only calls retry; archived and forked repositories are left out.
    expect(matches.map((m) => [m.repository, m.path, m.symbols.map((s: any) => `${s.kind} ${s.name}@${s.line}`)])).toEqual([
      ['github.com/acme/app', 'src/retry.ts', ['FUNCTION retry@1']],
      ['github.com/acme/lib', 'lib.py', ['FUNCTION retry@1']],
    ]);
    expect(finalProgress(events).matchCount).toBe(2);
    const all = await search('repo:acme/app type:symbol count:all');
    expect(matchesOf(all.events).flatMap((m) => m.symbols.map((s: any) => s.name))).toEqual(['main', 'retry']);
    const cut = await search('type:symbol count:1 retry');
    expect(matchesOf(cut.events)).toHaveLength(1);
    expect(finalProgress(cut.events).matchCount).toBe(1);
    expect(finalProgress(cut.events).skipped[0]).toMatchObject({ reason: 'shard-match-limit' });
    const filters = events.filter((e) => e.event === 'filters').map((e) => json<any[]>(e)).at(-1)!;
    expect(filters).toContainEqual(expect.objectContaining({ value: 'type:symbol', label: 'Symbols', count: 2 }));
  });
});
