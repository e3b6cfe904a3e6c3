// The one link reader: every form real answers write (the four recorded replies, and generated variants of
// each form), and what reads through it: citations and `sourcesInclude`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { linksIn, parseLink, type RepositoryLink } from '../src/answer-links.js';
import { citationLabel, extractCitations } from '../src/grade/links.js';
import { evaluateQuestion } from '../src/runner/expectations.js';

const REAL = path.join(import.meta.dirname, 'fixtures/real/versioned');
const SHA = '742a60d94fdaacc977c09444b651f7cf1c1aab9e';
const HOST = 'https://demo.sourcegraph.com';

interface RealReply {
  questions: Array<{ answer?: Array<{ markdown: { text: string } }> }>;
}

function realAnswers(): Array<{ file: string; text: string }> {
  return readdirSync(REAL)
    .filter((f) => f.startsWith('real-'))
    .sort()
    .map((file) => {
      const reply = JSON.parse(readFileSync(path.join(REAL, file), 'utf8')) as RealReply;
      return { file, text: reply.questions.flatMap((q) => q.answer ?? []).map((a) => a.markdown.text).join('\n') };
    });
}

/** Every URL a Markdown link of the text points to: what a reader would click. */
function markdownTargets(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('the four real replies', () => {
  it('reads every link of every answer: repository without prefix or revision, the revision, path and lines', () => {
    const summary: Record<string, { links: number; byKind: Record<string, number>; withLines: number; revisions: string[] }> = {};
    for (const { file, text } of realAnswers()) {
      const targets = markdownTargets(text);
      const links = linksIn(text);
      // Every link a reader can click was read, in order, and nothing else.
      expect(links.map((l) => l.link)).toEqual(targets);
      for (const l of links) {
        expect(l.repository).toMatch(/^github\.com\/sg-evals\/[\w.-]+$/);
        expect(l.revision).toMatch(/^[0-9a-f]{40}$/);
        expect(l.path).toMatch(/^[^/].*[^/]$/);
        const lines = /\?L(\d+)(?:-L(\d+))?$/.exec(l.link);
        expect([l.startLine, l.endLine]).toEqual(lines ? [Number(lines[1]), Number(lines[2] ?? lines[1])] : [undefined, undefined]);
      }
      summary[file] = {
        links: links.length,
        byKind: links.reduce<Record<string, number>>((n, l) => ({ ...n, [l.kind]: (n[l.kind] ?? 0) + 1 }), {}),
        withLines: links.filter((l) => l.startLine !== undefined).length,
        revisions: [...new Set(links.map((l) => l.revision!.slice(0, 7)))],
      };
    }
    expect(summary).toEqual({
      'real-0010023c.json': { links: 16, byKind: { file: 16 }, withLines: 11, revisions: ['742a60d'] },
      'real-82694363.json': { links: 0, byKind: {}, withLines: 0, revisions: [] },
      'real-84c59cab.json': { links: 16, byKind: { directory: 1, file: 15 }, withLines: 10, revisions: ['b48037b'] },
      'real-9fd0a6d7.json': { links: 92, byKind: { file: 92 }, withLines: 0, revisions: ['300438f'] },
    });
  });

  it('reads the shapes of each form exactly', () => {
    const [first, , slashDotR] = realAnswers();
    const links = [...linksIn(first!.text), ...linksIn(slashDotR!.text)];
    const pick = (suffix: string) => links.find((l) => l.link.endsWith(suffix));
    expect(pick('/-/blob/.github/workflows/docker-release.yml?L107-L110')).toMatchObject({
      kind: 'file',
      repository: 'github.com/sg-evals/0xfurai-peekaping',
      revision: SHA,
      path: '.github/workflows/docker-release.yml',
      startLine: 107,
      endLine: 110,
    });
    expect(pick('/-/blob/apps/web/package.json?L62')).toMatchObject({ path: 'apps/web/package.json', startLine: 62, endLine: 62 });
    // The malformed `/.r/` prefix names the same repository.
    expect(pick('/-/tree/.github')).toMatchObject({ kind: 'directory', repository: 'github.com/sg-evals/2dust-v2rayN', revision: 'b48037b7579ab524c106c555cce165e089ebf1dc', path: '.github' });
  });

  it('gives grading one citation per distinct file, line range and folder, labelled with the short revision', () => {
    const [first] = realAnswers();
    const citations = extractCitations(first!.text);
    expect(citations).toHaveLength(16);
    expect(citationLabel(citations[2]!)).toBe('github.com/sg-evals/0xfurai-peekaping@742a60d/.github/workflows/docker-release.yml#L107-110');
  });
});

describe('every form, generated', () => {
  const repo = 'github.com/org/repo';
  const file = (extra: Partial<RepositoryLink>): Partial<RepositoryLink> => ({ kind: 'file', repository: repo, path: 'src/a b/x.ts', ...extra });
  const cases: Array<[string, Partial<RepositoryLink> | undefined]> = [
    [`${HOST}/r/${repo}@${SHA}/-/blob/src/a%20b/x.ts?L12-L21`, file({ revision: SHA, startLine: 12, endLine: 21 })],
    [`${HOST}/r/${repo}@${SHA}/-/blob/src/a%20b/x.ts?L62`, file({ revision: SHA, startLine: 62, endLine: 62 })],
    [`${HOST}/r/${repo}@${SHA}/-/blob/src/a%20b/x.ts?L245-252`, file({ revision: SHA, startLine: 245, endLine: 252 })],
    [`${HOST}/r/${repo}@${SHA}/-/blob/src/a%20b/x.ts?L21-12`, file({ revision: SHA, startLine: 12, endLine: 21 })],
    [`${HOST}/r/${repo}@${SHA}/-/blob/src/a%20b/x.ts#L10:3-20:5`, file({ revision: SHA, startLine: 10, endLine: 20 })],
    [`${HOST}/r/${repo}@${SHA}/-/blob/src/a%20b/x.ts`, file({ revision: SHA })],
    [`${HOST}/r/${repo}/-/blob/src/a%20b/x.ts?L3`, file({ startLine: 3, endLine: 3 })],
    [`${HOST}/${repo}@v1.2.0/-/blob/src/a%20b/x.ts?L3`, file({ revision: 'v1.2.0', startLine: 3, endLine: 3 })],
    [`${HOST}/${repo}/-/blob/src/a%20b/x.ts`, file({})],
    [`${HOST}/.r/${repo}@${SHA}/-/blob/src/a%20b/x.ts?L7`, file({ revision: SHA, startLine: 7, endLine: 7 })],
    [`r/${repo}@${SHA}/-/blob/src/a%20b/x.ts?L7`, file({ revision: SHA, startLine: 7, endLine: 7 })],
    [`/r/${repo}@${SHA}/-/blob/src/a%20b/x.ts?L7`, file({ revision: SHA, startLine: 7, endLine: 7 })],
    [`/${repo}/-/raw/src/a%20b/x.ts`, file({})],
    [`${HOST}/r/${repo}@${SHA}/-/tree/lib/handler/`, { kind: 'directory', repository: repo, revision: SHA, path: 'lib/handler' }],
    [`${HOST}/r/${repo}@${SHA}/-/tree`, { kind: 'directory', repository: repo, revision: SHA, path: '' }],
    [`${HOST}/${repo}/-/commit/${SHA.toUpperCase()}`, { kind: 'commit', repository: repo, revision: SHA }],
    [`${HOST}/r/${repo}@${SHA}`, { kind: 'repository', repository: repo, revision: SHA }],
    ['/github.com/org/repo', { kind: 'repository', repository: repo }],
    // Other sites, and links that name no file of an instance repository.
    ['https://github.com/org/repo/blob/main/src/x.ts#L3', undefined],
    ['https://gitlab.com/group/project/-/blob/main/src/x.ts', undefined],
    [`${HOST}/search?q=repo:org`, undefined],
    [`${HOST}/r/${repo}/-/commit/not-a-sha`, undefined],
    [`${HOST}/r/${repo}/-/blob/`, undefined],
    ['mailto:someone@example.com', undefined],
  ];

  it.each(cases)('%s', (link, expected) => {
    const parsed = parseLink(link);
    if (expected === undefined) expect(parsed).toBeUndefined();
    else expect(parsed).toEqual({ ...expected, link });
  });

  it('finds links in Markdown, autolinks and bare prose, without the punctuation that ends a sentence', () => {
    const text = [
      `See [x.ts](${HOST}/r/${repo}@${SHA}/-/blob/src/x.ts?L1-L2), <${HOST}/${repo}/-/blob/src/y.ts> and ${HOST}/r/${repo}/-/tree/lib.`,
      `A relative one: [z](r/${repo}/-/blob/z.go?L5); a commit: ${HOST}/${repo}/-/commit/${SHA}; elsewhere: https://gitlab.com/a/b/-/blob/main/x.`,
      `Not a link: the text mentions r/${repo} and a path like src/-/blob/x.`,
    ].join('\n');
    expect(linksIn(text).map((l) => [l.kind, l.path ?? l.revision, l.startLine])).toEqual([
      ['file', 'src/x.ts', 1],
      ['file', 'src/y.ts', undefined],
      ['directory', 'lib', undefined],
      ['file', 'z.go', 5],
      ['commit', SHA, undefined],
    ]);
  });
});

describe('sourcesInclude reads answer links of every form', () => {
  it('names the repository whatever prefix or revision the link has', () => {
    const answer = [
      `[a](${HOST}/r/github.com/org/one@${SHA}/-/blob/a.ts?L1-L2)`,
      `[b](${HOST}/.r/github.com/org/two@${SHA}/-/tree/lib)`,
      `[c](r/github.com/org/three/-/blob/c.ts)`,
      `[d](https://gitlab.com/org/four/-/blob/main/d.ts)`,
    ].join('\n');
    const turn = { state: 'completed' as const, text: 'q', answer, polls: 1 };
    const results = evaluateQuestion({ sourcesInclude: ['github.com/org/one', 'github.com/org/two', 'github.com/org/three', 'gitlab.com/org/four'] }, [], [turn]);
    expect(results.filter((r) => r.name === 'sourcesInclude').map((r) => r.passed)).toEqual([true, true, true, false]);
  });

  it('reads sources written as links to the repository', () => {
    const turn = { state: 'completed' as const, text: 'q', answer: '', polls: 1, sources: [{ type: 'Repository' as const, link: `/r/github.com/org/one@${SHA}`, label: 'org/one' }] };
    const [result] = evaluateQuestion({ sourcesInclude: ['github.com/org/one'] }, [], [turn]);
    expect(result).toMatchObject({ passed: true });
  });
});
