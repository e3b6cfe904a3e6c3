import { mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Corpus, CorpusError, createAgentSearch, QuerySyntaxError } from '../../../src/emulator/corpus/index.js';
import { languageOf } from '../../../src/emulator/corpus/languages.js';
import { matchLimit } from '../../../src/emulator/corpus/skipped.js';
import { makeCorpusDir, openCorpus, removeDir } from '../stream/harness.js';

let dir: string;
let corpus: Corpus;

beforeAll(async () => {
  dir = makeCorpusDir();
  mkdirSync(path.join(dir, 'github.com/acme/app/node_modules/dep'), { recursive: true });
  writeFileSync(path.join(dir, 'github.com/acme/app/node_modules/dep/index.js'), 'retry');
  mkdirSync(path.join(dir, 'github.com/acme/app/.git'));
  writeFileSync(path.join(dir, 'github.com/acme/app/.git/HEAD'), 'retry');
  symlinkSync(path.join(dir, 'github.com/acme/lib'), path.join(dir, 'github.com/acme/app/linked'));
  writeFileSync(path.join(dir, 'github.com/stray.txt'), 'not a repository');
  mkdirSync(path.join(dir, 'github.com/.hidden/repo'), { recursive: true });
  corpus = await openCorpus(dir);
});

afterAll(() => removeDir(dir));

describe('a corpus folder', () => {
  it('maps <host>/<owner>/<name> folders to repository names, sorted, with stable metadata', async () => {
    const repos = await corpus.repositories();
    expect(repos.map((r) => r.name)).toEqual([
      'github.com/acme/app', 'github.com/acme/lib', 'github.com/forks/copy', 'github.com/old/archive',
    ]);
    expect(repos.map((r) => [r.archived, r.fork])).toEqual([[false, false], [false, false], [false, true], [true, false]]);
    const again = await (await openCorpus(dir)).repositories();
    expect(again.map((r) => [r.id, r.commit, r.stars])).toEqual(repos.map((r) => [r.id, r.commit, r.stars]));
    expect(new Set(repos.map((r) => r.id)).size).toBe(repos.length);
  });

  it('lists text files only: no binaries, big files, VCS or nested node_modules folders, or links', async () => {
    const [app] = await corpus.repositories();
    const files: string[] = [];
    for await (const f of corpus.files(app!)) files.push(f.path);
    expect(files).toEqual(['README.md', 'docs/long.md', 'src/main.ts', 'src/retry.ts']);
    const cached: string[] = [];
    for await (const f of corpus.files(app!)) cached.push(f.path);
    expect(cached).toEqual(files);
  });

  it('fails clearly when the folder is missing', async () => {
    await expect(Corpus.open({ dir: path.join(dir, 'missing') })).rejects.toThrow(CorpusError);
  });
});

describe('corpora opened one after another over one folder', () => {
  // A process remembers what walks, reads and symbol lookups found; each corpus must still see the folder as it is.
  it('see files added, removed, turned binary and rewritten since an earlier one was searched', async () => {
    const local = makeCorpusDir({
      'github.com/a/r/gone.ts': 'export function gone() {}\n',
      'github.com/a/r/text.ts': 'export const y = 1;\n',
      'github.com/a/r/lib/old.ts': 'export class Old {}\n',
      // Past the 8 KB a walk looks at: only a search reads the line that changes.
      'github.com/a/r/lib/big.ts': `//${'-'.repeat(9000)}\nexport const first = 1;\n`,
    });
    const file = (name: string) => path.join(local, 'github.com/a/r', name);
    const files = async () => {
      const fresh = await openCorpus(local);
      const found: string[] = [];
      for await (const f of fresh.files((await fresh.repositories())[0]!)) found.push(f.path);
      return found;
    };
    const definitions = async (name: string) =>
      (await createAgentSearch(await openCorpus(local)).definitions(name, ['github.com/a/r'])).map((c) => `${c.path}:${c.lineNumber}`);
    const mentions = async (word: string) => (await createAgentSearch(await openCorpus(local))(word, 10)).map((c) => `${c.path}:${c.preview}`);
    try {
      expect(await files()).toEqual(['gone.ts', 'lib/big.ts', 'lib/old.ts', 'text.ts']);
      expect(await definitions('Old')).toEqual(['lib/old.ts:1']);
      expect(await mentions('class')).toEqual(['lib/old.ts:export class Old {}']);
      expect(await mentions('y')).toEqual(['text.ts:export const y = 1;']);
      expect(await mentions('first')).toEqual(['lib/big.ts:export const first = 1;']);
      rmSync(file('gone.ts'));
      writeFileSync(file('lib/added.ts'), 'export class Added {}\n');
      // Same sizes as before: a NUL byte makes text.ts binary, and old.ts defines another class.
      writeFileSync(file('text.ts'), 'export const y = 1;\0');
      writeFileSync(file('lib/old.ts'), 'export class New {}\n');
      writeFileSync(file('lib/big.ts'), `//${'-'.repeat(9000)}\nexport const again = 1;\n`);
      // Another modification time than the first write's, however coarse the file system's clock.
      for (const name of ['text.ts', 'lib/old.ts', 'lib/big.ts']) utimesSync(file(name), new Date('2001-01-01'), new Date('2001-01-01'));
      expect(await files()).toEqual(['lib/added.ts', 'lib/big.ts', 'lib/old.ts']);
      expect(await definitions('Old')).toEqual([]);
      expect(await definitions('New')).toEqual(['lib/old.ts:1']);
      expect(await definitions('Added')).toEqual(['lib/added.ts:1']);
      expect(await mentions('class')).toEqual(['lib/added.ts:export class Added {}', 'lib/old.ts:export class New {}']);
      expect(await mentions('y')).toEqual([]);
      expect(await mentions('first')).toEqual([]);
      expect(await mentions('again')).toEqual(['lib/big.ts:export const again = 1;']);
    } finally {
      removeDir(local);
    }
  });
});

describe('the default corpus', () => {
  it("is dsbench's node_modules, with npm names and a default archived repo and fork", async () => {
    const fallback = await Corpus.open();
    expect(fallback.layout).toBe('node_modules');
    expect(path.basename(fallback.root)).toBe('node_modules');
    const repos = await fallback.repositories();
    const byName = new Map(repos.map((r) => [r.name, r]));
    expect(byName.get('github.com/npm/yaml')?.archived).toBe(true);
    expect(byName.get('github.com/npm/p-limit')?.fork).toBe(true);
    expect(byName.has('github.com/npm/zod')).toBe(true);
    expect(byName.has('github.com/types/node')).toBe(true);
    expect(repos.some((r) => r.name.includes('/.'))).toBe(false);
  });
});

describe('languages', () => {
  it.each([
    ['a.ts', 'TypeScript'], ['a.d.ts', 'TypeScript'], ['a.mjs', 'JavaScript'], ['a.json', 'JSON'], ['README.md', 'Markdown'],
    ['x.c', 'C'], ['x.hpp', 'C++'], ['x.py', 'Python'], ['Makefile', 'Makefile'], ['noext', ''],
  ])('%s is %s', (file, language) => expect(languageOf(file)).toBe(language));
});

describe('the shard-match-limit suggestion', () => {
  it.each([
    [1, 'count:1000'], [499, 'count:1000'], [500, 'count:2000'], [10_000, 'count:11000'],
  ])('for a limit of %i is %s', (limit, expression) => expect(matchLimit(limit).suggested?.queryExpression).toBe(expression));
});

describe('createAgentSearch', () => {
  it('returns one citation per file with a 1-based line and a preview', async () => {
    const search = createAgentSearch(corpus);
    const found = await search('fetchData', 5);
    // Pinned to the repository's commit, with the cited span (a few lines) and its text.
    expect(found).toEqual([
      {
        repository: 'github.com/acme/app',
        revision: expect.stringMatching(/^[0-9a-f]{40}$/) as unknown as string,
        path: 'src/main.ts',
        lineNumber: 3,
        endLine: 4,
        snippet: expect.stringContaining('fetchData') as unknown as string,
        preview: 'return retry(() => fetchData(), 3);',
      },
    ]);
    const citations = await search('retry', 3);
    expect(citations).toHaveLength(3);
    expect(citations.every((c) => c.preview.toLowerCase().includes('retry'))).toBe(true);
    expect(await search('retry', 0)).toEqual([]);
    expect(await search('lang:python', 5)).toEqual([{ repository: 'github.com/acme/lib', revision: expect.stringMatching(/^[0-9a-f]{40}$/) as unknown as string, path: 'lib.py', lineNumber: 1, preview: '' }]);
  });

  it('throws on a query that does not parse', async () => {
    await expect(createAgentSearch(corpus)('(retry', 1)).rejects.toThrow(QuerySyntaxError);
  });
});
