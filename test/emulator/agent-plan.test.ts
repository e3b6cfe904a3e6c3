// How the fake agent reads a question (repositories, identifiers, keywords, conversation context),
// which line and file its corpus search cites, and how the answer is put together.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchHit } from '../../src/emulator/agent-search.js';
import { composeAnswer } from '../../src/emulator/answer.js';
import { keywordQuery, planResearch, scopeFilter, targetQuery } from '../../src/emulator/research-plan.js';
import { createAgentSearch, definitionScore, pathScore } from '../../src/emulator/corpus/agent.js';
import type { Corpus } from '../../src/emulator/corpus/index.js';
import { makeCorpusDir, openCorpus, removeDir } from './stream/harness.js';

const NAMES = [
  'github.com/npm/better-sqlite3',
  'github.com/npm/undici',
  'github.com/npm/undici-types',
  'github.com/npm/typescript',
  'github.com/npm/yaml',
  'github.com/npm/zod',
  'github.com/types/better-sqlite3',
  'github.com/types/node',
];

const plan = (question: string, history: string[] = []) => planResearch(question, history, NAMES);

describe('reading a question', () => {
  it.each([
    ['Where is RetryHandler implemented in undici?', ['github.com/npm/undici']],
    ["Where is the retry policy of undici's fetch implemented (RetryHandler)?", ['github.com/npm/undici']],
    ['Undici: where are retries decided?', ['github.com/npm/undici']],
    ['What does undici-types declare?', ['github.com/npm/undici-types']],
    ['Compare zod and yaml.', ['github.com/npm/zod', 'github.com/npm/yaml']],
    ['How is github.com/npm/undici built?', ['github.com/npm/undici']],
    ['What does @types/node declare for Buffer?', ['github.com/types/node']],
    ['Where is the Database class of better-sqlite3?', ['github.com/npm/better-sqlite3', 'github.com/types/better-sqlite3']],
    // Everyday words and the language's name do not name a repository.
    ['Which node types does the parser build?', []],
    ['Is this written in TypeScript?', []],
  ])('%s is scoped to %j', (question, repositories) => {
    expect(plan(question).repositories).toEqual(repositories);
  });

  it('searches identifiers first: CamelCase, snake_case, dotted, calls, `code` and "the X class"', () => {
    expect(plan('Where is RetryHandler implemented in undici?')).toMatchObject({
      targets: [{ kind: 'identifier', text: 'RetryHandler' }],
      keywords: [],
    });
    expect(plan('Who calls parse_args and z.object()?').targets).toEqual([
      { kind: 'identifier', text: 'parse_args' },
      { kind: 'identifier', text: 'z.object' },
    ]);
    expect(plan('What does dispatch() return?').targets).toEqual([{ kind: 'identifier', text: 'dispatch' }]);
    expect(plan('What does `retry` do in lib/handler/retry-handler.js?').targets).toEqual([
      { kind: 'identifier', text: 'retry' },
      { kind: 'path', text: 'lib/handler/retry-handler.js' },
    ]);
    expect(plan('Where is the Database class of better-sqlite3?').targets).toEqual([{ kind: 'identifier', text: 'Database' }]);
    expect(plan('What does @Injectable register?').targets).toEqual([{ kind: 'identifier', text: 'Injectable' }]);
    expect(plan('How does Node.js load it, e.g. in v7.3?').targets).toEqual([]);
  });

  it('keeps the longest other words as keywords, after a camelCase join of two adjacent ones', () => {
    expect(plan('Which status codes does RetryHandler retry?').keywords).toEqual(['statusCodes', 'status', 'codes', 'retry']);
    expect(plan("Where is the retry policy of undici's fetch implemented?").keywords).toEqual(['retryPolicy', 'policy', 'retry', 'fetch']);
    expect(plan('Where is it?').keywords).toEqual([]);
  });

  it('takes repositories and identifiers from the latest earlier question when a follow-up names none', () => {
    const history = ['Where is RetryHandler implemented in undici?', 'And in zod?'];
    expect(plan('Which status codes does it retry?', history.slice(0, 1))).toMatchObject({
      repositories: ['github.com/npm/undici'],
      targets: [{ kind: 'identifier', text: 'RetryHandler' }],
      fromHistory: { repositories: ['github.com/npm/undici'], targets: true },
    });
    // The latest question that named a repository wins; identifiers come from the latest that had some.
    expect(plan('Which status codes does it retry?', history)).toMatchObject({
      repositories: ['github.com/npm/zod'],
      targets: [{ text: 'RetryHandler' }],
    });
    // A question's own names override the conversation's.
    expect(plan('Where is parseDocument in yaml?', history)).toMatchObject({
      repositories: ['github.com/npm/yaml'],
      targets: [{ text: 'parseDocument' }],
      fromHistory: { repositories: [], targets: false },
    });
  });

  it('ignores the trigger phrases and needs the corpus names to scope', () => {
    expect(plan('[[token-limit]] Where is RetryHandler in undici?').targets).toEqual([{ kind: 'identifier', text: 'RetryHandler' }]);
    expect(planResearch('Where is RetryHandler in undici?', [], [])).toMatchObject({ repositories: [], keywords: ['undici'] });
  });
});

describe('queries', () => {
  it('are bare terms without scope, and carry repo:, archived: and fork: filters with it', () => {
    expect(targetQuery(planResearch('Where is retryPolicy?', [], []), { kind: 'identifier', text: 'retryPolicy' })).toBe('retryPolicy');
    const scoped = plan('Where is RetryHandler in undici and zod?');
    expect(scopeFilter(scoped.repositories)).toBe('repo:^(?:github\\.com/npm/undici|github\\.com/npm/zod)$ archived:yes fork:yes ');
    expect(targetQuery(scoped, { kind: 'path', text: 'lib/a.js' })).toBe(
      'repo:^(?:github\\.com/npm/undici|github\\.com/npm/zod)$ archived:yes fork:yes file:(?:^|/)lib/a\\.js$',
    );
    const within: SearchHit = { repository: 'github.com/npm/undici', path: 'lib/handler/retry-handler.js', lineNumber: 87, preview: '' };
    expect(keywordQuery(scoped, 'status', within)).toBe(
      'repo:^github\\.com/npm/undici$ archived:yes fork:yes file:^lib/handler/retry-handler\\.js$ status',
    );
    expect(keywordQuery(scoped, 'status', undefined)).toBe(`${scopeFilter(scoped.repositories)}status`);
  });
});

describe('choosing what to cite', () => {
  it.each([
    ['class RetryHandler {', 3],
    ['export default class RetryHandler extends Base {', 3],
    ['async function retryPolicy(opts) {', 3],
    ['export const retryPolicy = () => {}', 3],
    ['type RetryHandler = {', 3],
    ['export interface RetryHandler {', 3],
    ['export function* retryPolicy() {', 3],
    // A keyword must stand alone: not the end of a longer name, nor a property.
    ['Xinterface RetryHandler = 1', 0],
    ['opts.namespace RetryHandler', 0],
    ['  retryPolicy: defaults.retryPolicy,', 2],
    ['module.exports.RetryHandler = RetryHandler', 2],
    ['  RetryHandler (opts, handler) {', 2],
    ['module.exports = RetryHandler', 1],
    ['export { RetryHandler }', 1],
    ["const RetryHandler = require('./retry-handler')", 0],
    ["import { RetryHandler } from './retry-handler.js'", 0],
    ['return new RetryHandler(opts)', 0],
  ])('%s defines it with strength %i', (line, expected) => {
    const at = line.search(/RetryHandler|retryPolicy/);
    const name = /RetryHandler|retryPolicy/.exec(line)![0];
    expect(definitionScore(line, at, at + name.length)).toBe(expected);
  });

  it.each([
    ['lib/handler/retry-handler.js', 6],
    ['src/index.ts', 6],
    ['index.js', 5],
    ['dist/index.js', 4],
    ['test/retry.test.js', 3],
    ['docs/api/RetryHandler.md', 2],
    ['package.json', 2],
    ['types/retry-handler.d.ts', 1],
    ['dist/index.js.map', 0],
    ['dist/index.min.js', 0],
  ])('%s is worth %i as a place to cite', (file, expected) => {
    expect(pathScore(file, false)).toBe(expected);
  });

  describe('the corpus search', () => {
    let dir: string;
    let corpus: Corpus;
    beforeAll(async () => {
      dir = makeCorpusDir({
        'github.com/acme/app/README.md': 'Use RetryHandler to retry.\n',
        'github.com/acme/app/index.d.ts': 'export declare class RetryHandler {}\n',
        'github.com/acme/app/index.js': "const RetryHandler = require('./lib/retry-handler')\nmodule.exports = RetryHandler\n",
        'github.com/acme/app/lib/retry-handler.js':
          "const { kRetryHandler } = require('./symbols')\n// RetryHandler retries\nclass RetryHandler {\n}\nmodule.exports = RetryHandler\n",
        'github.com/acme/app/lib/symbols.js': "module.exports = { kRetryHandler: Symbol('retry') }\n",
        'github.com/acme/app/build/retry-handler.js': 'class RetryHandler {}\n',
        'github.com/acme/other/src/use.js': 'new RetryHandler()\n',
      });
      corpus = await openCorpus(dir);
    });
    afterAll(() => removeDir(dir));

    it('ranks source files first, cites their defining line, and leaves build output out', async () => {
      const search = createAgentSearch(corpus);
      const hits = await search('repo:^github\\.com/acme/app$ RetryHandler', 10);
      expect(hits.map((h) => `${h.path}:${h.lineNumber}`)).toEqual([
        'lib/retry-handler.js:3', // source, declaration
        'index.js:2', // code, export (line 1 is an import)
        'index.d.ts:1', // type declarations, declaration: as good as ...
        'lib/symbols.js:1', // ... source with the name inside a longer one; corpus order breaks the tie
        'README.md:1', // docs, mention
      ]);
      expect(hits[0]!.preview).toBe('class RetryHandler {');
      expect(await search('RetryHandler', 10)).toContainEqual(expect.objectContaining({ repository: 'github.com/acme/other', path: 'src/use.js', lineNumber: 1, preview: 'new RetryHandler()' }));
      expect(await search.repositories()).toEqual(['github.com/acme/app', 'github.com/acme/other']);
    });

    it('stops after its file budget, the same way every time', async () => {
      // A long real-time budget: only the file budget may end the search, however busy the machine.
      const search = createAgentSearch(corpus, { maxFiles: { global: 3, scoped: 3 } });
      const once = await search('RetryHandler', 10);
      expect(once.length).toBeLessThan(6);
      expect(await search('RetryHandler', 10)).toEqual(once);
    });
  });
});

describe('the answer', () => {
  const SHA = '742a60d94fdaacc977c09444b651f7cf1c1aab9e';
  const hit = (repository: string, path: string, lineNumber: number, preview: string): SearchHit => ({ repository, path, lineNumber, preview, revision: SHA });

  it('names the definition, lists other places, and puts the searched repositories first among the sources', () => {
    const p = plan('Which status codes does it retry?', ['Where is RetryHandler in undici?']);
    const main = { ...hit('github.com/npm/undici', 'lib/handler/retry-handler.js', 87, 'class RetryHandler {'), endLine: 89, snippet: 'class RetryHandler {\n  constructor (opts) {\n    super(opts)' };
    const answer = composeAnswer({
      question: 'Which status codes does it retry?',
      plan: p,
      targets: [{ target: p.targets[0]!, hits: [hit('github.com/npm/undici', 'index.js', 43, 'module.exports = RetryHandler'), main] }],
      keywords: [
        { keyword: 'statusCodes', hits: [hit('github.com/npm/undici', 'lib/handler/retry-handler.js', 120, 'statusCodes: statusCodes ?? [500, 502],')], within: main },
        { keyword: 'status', hits: [], within: main },
      ],
      searches: 3,
      linkBase: 'https://sg.test',
    });
    // Shaped like a real answer: narration, sections, links pinned to the commit (`/r/<repo>@<sha>/-/blob/...?La-Lb`),
    // a file without lines, a list without the `/r/` prefix, a folder and the commit itself.
    const at = `github.com/npm/undici@${SHA}`;
    expect(answer.markdown).toBe([
      'I have what I need from github.com/npm/undici. Let me put the findings together.',
      '---',
      'Continuing from the earlier question, about `RetryHandler` in github.com/npm/undici.',
      `## \`RetryHandler\`\n\n\`RetryHandler\` is defined in [lib/handler/retry-handler.js:87](https://sg.test/r/${at}/-/blob/lib/handler/retry-handler.js?L87-L89) in [github.com/npm/undici](https://sg.test/r/${at}): \`class RetryHandler {\`.`,
      '**Evidence** (lines 87-89):\n\n```\nclass RetryHandler {\n  constructor (opts) {\n    super(opts)\n```',
      `Other places that use \`RetryHandler\`:\n\n1. [index.js:43](https://sg.test/${at}/-/blob/index.js?L43) in [github.com/npm/undici](https://sg.test/r/${at}): \`module.exports = RetryHandler\``,
      `## In \`lib/handler/retry-handler.js\`\n\nIn [lib/handler/retry-handler.js](https://sg.test/r/${at}/-/blob/lib/handler/retry-handler.js), the parts about \`statusCodes\`:\n\n- \`statusCodes\`: [lib/handler/retry-handler.js:120](https://sg.test/r/${at}/-/blob/lib/handler/retry-handler.js?L120) \`statusCodes: statusCodes ?? [500, 502],\`\n\n\`status\` does not appear in that file.`,
      `## Where to look\n\nFolders: [lib/handler/](https://sg.test/r/${at}/-/tree/lib/handler).\n\nLinks are pinned to [github.com/npm/undici@742a60d](https://sg.test/github.com/npm/undici/-/commit/${SHA}).`,
      'I ran 3 searches in github.com/npm/undici, for `RetryHandler`, `statusCodes` and `status`.',
    ].join('\n\n'));
    expect(answer.sources).toEqual([{ type: 'Repository', link: '/github.com/npm/undici', label: 'github.com/npm/undici' }]);
    expect(answer.followups).toEqual([
      'Which code in github.com/npm/undici calls RetryHandler?',
      'How is RetryHandler tested in github.com/npm/undici?',
    ]);
    expect(answer.title).toBe('Which status codes does it retry');
  });

  it('says what was searched when nothing was found', () => {
    const p = planResearch('Where is frobnicateWidget?', [], []);
    const answer = composeAnswer({ question: 'Where is frobnicateWidget?', plan: p, targets: [{ target: p.targets[0]!, hits: [] }], keywords: [], searches: 1, linkBase: '' });
    expect(answer.markdown).toBe('I ran 1 search in the indexed repositories, for `frobnicateWidget`, and found nothing relevant.');
    expect(answer.sources).toEqual([]);
    expect(answer.followups).toHaveLength(2);
  });
});
