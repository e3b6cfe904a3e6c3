// Server text on a terminal and in report.md: escape sequences removed whole, links a server wrote dead
// (test/report/autolinks.test.ts has URLs GitHub would autolink).
import { describe, expect, it } from 'vitest';
import { renderMarkdown, renderText } from '../src/report/document.js';
import { mdCell } from '../src/report/tables.js';
import { terminalJson, terminalSafe } from '../src/terminal-text.js';

const HOSTILE = 'a\x1b]52;c;ZXZpbA==\x07b\x1b]0;title\x1b\\c\x9b31md\x1b[2Je\rf\x07g\x9dosc\x9ch';

describe('server text for a terminal', () => {
  it('removes OSC 52, OSC 0, C1 CSI, CSI and lone controls, keeping newline and tab', () => {
    expect(terminalSafe(HOSTILE)).toBe('abcdefgh');
    expect(terminalSafe('one\ntwo\tthree')).toBe('one\ntwo\tthree');
  });

  it('escapes C1 controls in JSON, which JSON.stringify writes raw', () => {
    const json = terminalJson(JSON.stringify({ text: '\x9b31m' }));
    expect(json).not.toMatch(/[\x80-\x9f]/);
    expect(JSON.parse(json)).toEqual({ text: '\x9b31m' });
  });

  it('report tables and text carry no escape sequence, and a server link stays dead in Markdown', () => {
    const blocks = [{ kind: 'table' as const, table: { headers: ['answer'], rows: [[`${HOSTILE} [click](https://evil.example)`]] } }, { kind: 'para' as const, text: [HOSTILE] }];
    for (const out of [renderMarkdown(blocks), renderText(blocks)]) expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(mdCell('[click] (https://evil.example)')).toBe('\\[click\\] (`https://evil.example`)');
  });
});
