// A URL in server text (answers, sources, error messages) must not become a link where GitHub renders
// report.md. GitHub autolinks twice: while parsing (GFM's extended autolinks) and again afterwards in the text
// with its escapes and character references decoded; neither links inside a code span.
import fs from 'node:fs';
import path from 'node:path';
import MarkdownIt, { type Token } from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { type Block, renderMarkdown } from '../../src/report/document.js';
import { writeReport } from '../../src/report/report.js';
import type { Store } from '../../src/store/store.js';
import { failed, question, recordRun, useTempStore } from './fixtures.js';

// CommonMark with GFM tables; linkify stands for the first pass (without linkify-it's `//host` links, which GFM has not).
const markdown = new MarkdownIt({ html: false, linkify: true });
markdown.linkify.add('//', null);

/** What GitHub's second pass would link in decoded text: a scheme's URL, `www.`, an e-mail address (a superset of GFM's rules). */
const AUTOLINKABLE = /(?:https?|ftp):\/\/[^\s]|www\.[^\s]|[\w.+-]@[\w-]+\.\w/i;

function inline(md: string): Token[] {
  return markdown.parse(md, {}).flatMap((t) => t.children ?? []);
}

/** The text a reader sees: plain text and code spans' contents, in order. */
function shown(md: string): string {
  return inline(md)
    .map((t) => (t.type === 'text' || t.type === 'code_inline' ? t.content : ' '))
    .join('');
}

function expectNoLink(md: string): void {
  const tokens = inline(md);
  expect(tokens.filter((t) => t.type === 'link_open').map((t) => t.attrGet('href'))).toEqual([]);
  expect(tokens.filter((t) => t.type === 'text' && AUTOLINKABLE.test(t.content)).map((t) => t.content)).toEqual([]);
}

const HOSTILE = [
  'see https://evil.example/a?b=1.',
  'WWW.EVIL.EXAMPLE/path',
  'write to someone@evil.example',
  '[click](https://evil.example/md)',
  '<https://evil.example/angle>',
  'https&#58;//evil.example/reference',
  'https\\://evil.example/escape',
  '\\[https://evil.example/bracket',
  '(https://evil.example/paren).',
  'a ` b https://evil.example/`/https://evil.example/tick',
  '``https://evil.example/fenced``',
  'x|https://evil.example/pipe|y',
];

describe('URLs in server text in Markdown', () => {
  it('never become links, by GFM autolinks or by GitHub linking the decoded text again, in tables, paragraphs, lists and bold', () => {
    for (const text of HOSTILE) {
      const blocks: Block[] = [
        { kind: 'table', table: { headers: ['example'], rows: [[text]] } },
        { kind: 'para', text: [text] },
        { kind: 'list', items: [[text]] },
        { kind: 'callout', text: [{ strong: text }] },
      ];
      const md = renderMarkdown(blocks);
      expectNoLink(md);
    }
  });

  it('stay readable: the URL is shown as the server wrote it, in a code span', () => {
    const md = renderMarkdown([{ kind: 'para', text: ['see https://evil.example/a?b=1. or (www.evil.example), a ` b https://evil.example/`x'] }]);
    expect(md).toBe('see `https://evil.example/a?b=1`. or (`www.evil.example`), a \\` b ``https://evil.example/`x``\n');
    expect(shown(md)).toBe('see https://evil.example/a?b=1. or (www.evil.example), a ` b https://evil.example/`x');
    const cell = renderMarkdown([{ kind: 'table', table: { headers: ['example'], rows: [['x|https://evil.example/pipe|y & &amp;']] } }]);
    expect(shown(cell)).toContain('x|https://evil.example/pipe|y & &amp;');
  });
});

let dir: string;
let db: string;
let store: Store;
useTempStore((t) => ({ dir, db, store } = t));

describe('report.md', () => {
  it('links none of the URLs a server wrote in an error message or an answer a check quotes', async () => {
    recordRun(store, [
      {
        item: question('q1'),
        turns: [failed('INTERNAL', 'see https://evil.example/error and www.evil.example')],
        expectations: [{ name: 'contains', passed: false, reason: 'the answer says: visit https://evil.example/answer' }],
      },
    ]);
    const result = await writeReport({ db, run: '1', out: path.join(dir, 'out'), formats: new Set(['md'] as const), now: new Date('2025-03-01T02:00:00.000Z') });
    const md = fs.readFileSync(path.join(dir, 'out', 'report.md'), 'utf8');
    expect(md).toBe(result.markdown);
    for (const url of ['https://evil.example/error', 'www.evil.example', 'https://evil.example/answer']) expect(md).toContain(`\`${url}\``);
    expectNoLink(md);
  });
});
