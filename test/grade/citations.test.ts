// Citations of every real form checked against the emulator's raw endpoint: at the revision the link names,
// folders as folders, commits recorded but not counted; `cites:` reads them all.
import { afterEach, describe, expect, it } from 'vitest';
import { Corpus } from '../../src/emulator/corpus/index.js';
import { CitationChecker, citesChecks, summarize } from '../../src/grade/citations.js';
import { extractCitations } from '../../src/grade/links.js';
import { Transport } from '../../src/http/transport.js';
import { ask, legacySettled } from '../emulator/helpers.js';
import { ADMIN, CORPUS_SEARCH, cleanup, corpusDir, emulator } from '../runner/fixtures/harness.js';

afterEach(cleanup);

const FILES = {
  'github.com/npm/undici/lib/handler/retry-handler.js': 'class RetryHandler {\n  constructor (opts) {\n    this.retryAfter = opts.retryAfter\n  }\n}\n',
  'github.com/npm/undici/index.js': 'module.exports = require("./lib/handler/retry-handler")\n',
};

async function setup() {
  const dir = corpusDir(FILES);
  const e = await emulator({ timeScale: 0.001, corpus: { dir } }, CORPUS_SEARCH);
  const { commit } = (await (await Corpus.open({ dir })).repositories()).find((r) => r.name === 'github.com/npm/undici')!;
  const transport = new Transport({ endpoint: e.url, headers: { authorization: `token ${ADMIN}` }, retry: { maxAttempts: 1 } });
  return { e, commit, transport, checker: new CitationChecker(transport, 2) };
}

describe('checking citations of every form', () => {
  it('checks files and lines at the revision the link names, folders as folders, and records commits without counting them', async () => {
    const { e, commit, transport, checker } = await setup();
    const base = `http://sg.example/r/github.com/npm/undici@${commit}`;
    const answer = [
      `RetryHandler: [retry-handler.js](${base}/-/blob/lib/handler/retry-handler.js?L1-L3)`,
      `[line 9](${base}/-/blob/lib/handler/retry-handler.js?L9)`,
      `[old](http://sg.example/r/github.com/npm/undici@${'0'.repeat(40)}/-/blob/index.js)`,
      `[malformed prefix](http://sg.example/.r/github.com/npm/undici@${commit}/-/blob/index.js?L1)`,
      `[relative](r/github.com/npm/undici/-/blob/index.js)`,
      `[folder](${base}/-/tree/lib/handler) and [no folder](${base}/-/tree/lib/nope)`,
      `[a file as a folder is still there](${base}/-/tree/index.js)`,
      `[commit](http://sg.example/github.com/npm/undici/-/commit/${commit})`,
      `[elsewhere](https://github.com/nodejs/undici/blob/main/index.js)`,
    ].join('\n');
    try {
      const checked = await Promise.all(extractCitations(answer).map((c) => checker.check(c)));
      expect(checked.map((c) => [c.kind, c.status, c.reason])).toEqual([
        ['file', 'valid', `lines 1-3 of 5 exist at ${commit.slice(0, 7)}`],
        ['file', 'invalid', `line 9 beyond the end of the file (5 lines at ${commit.slice(0, 7)})`],
        ['file', 'invalid', `revision ${'0'.repeat(40)} not found in github.com/npm/undici`],
        ['file', 'valid', `line 1 of 1 exist at ${commit.slice(0, 7)}`],
        ['file', 'valid', 'file exists'],
        ['directory', 'valid', `directory exists at ${commit.slice(0, 7)} (1 entries)`],
        ['directory', 'invalid', `directory lib/nope not found in github.com/npm/undici@${commit.slice(0, 7)}`],
        ['directory', 'valid', `directory exists at ${commit.slice(0, 7)} (1 entries)`],
        ['commit', 'unchecked', 'a commit link: recorded, not a file citation'],
      ]);
      expect(checked.every((c) => c.repository === 'github.com/npm/undici')).toBe(true);
      // The commit is in the list, not in the counts.
      expect(summarize(checked)).toMatchObject({ valid: 5, invalid: 3, unchecked: 0 });
      // Each (repository, revision, path) once: the root at the commit and at the old revision, then HEAD, and the files and folders.
      expect(e.counters()['raw.file']).toBe(checker.fetches);
      expect(checker.fetches).toBe(8);

      const cites = citesChecks(['lib/handler/retry-handler.js', 'github.com/npm/undici/index.js', 'lib/handler', 'RetryHandler', 'retry-handler.js'], answer, checked);
      expect(cites.map((c) => c.passed)).toEqual([true, true, true, true, true]);
      expect(cites[0]!.reason).toBe(`lib/handler/retry-handler.js is cited (github.com/npm/undici@${commit.slice(0, 7)}/lib/handler/retry-handler.js#L1-3)`);
    } finally {
      await transport.close();
    }
  });

  it('checks the emulator\'s own answers, pinned to the corpus commit, and finds them all', async () => {
    const { e, transport, checker } = await setup();
    const { id } = await ask(e, 'Where is RetryHandler implemented in undici?');
    const answer = (await legacySettled(e, id)).json.questions[0].answer as string | undefined;
    try {
      expect(answer).toMatch(/^(Now I have|I have what I need)/);
      const found = extractCitations(answer!);
      expect(new Set(found.map((c) => c.kind))).toEqual(new Set(['file', 'directory', 'commit']));
      // A definition found by the symbol index cites its line (?L12), a search hit its span (?L12-L14): both real forms.
      expect(found.some((c) => c.link.includes('/r/github.com/npm/undici@') && /\?L\d+(-L\d+)?$/.test(c.link))).toBe(true);
      const checked = await Promise.all(found.map((c) => checker.check(c)));
      expect(summarize(checked)).toMatchObject({ invalid: 0, unchecked: 0, validity: 1 });
    } finally {
      await transport.close();
    }
  });
});
