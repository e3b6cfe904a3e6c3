import { describe, expect, it } from 'vitest';
import { renderMarkdown, renderText } from '../../src/report/document.js';
import { fmtPct, fmtSeconds, fmtSignedPct, mdCell, mdTable, plainCell, safeJson, textTable } from '../../src/report/tables.js';

describe('tables for people', () => {
  it('Markdown cells are one line, with pipes, backslashes and HTML escaped, and redacted', () => {
    expect(mdCell('a | b\nc')).toBe('a \\| b c');
    expect(mdCell('<script>x</script>')).toBe('&lt;script&gt;x&lt;/script&gt;');
    expect(mdCell('C:\\path')).toBe('C:\\\\path');
    expect(mdCell('token sgp_abcdef123456')).not.toContain('sgp_abcdef123456');
  });

  it('renders aligned Markdown and text tables', () => {
    const t = { headers: ['name', 'n'], rows: [['a', '1'], ['bbb', '22']], align: ['left', 'right'] as const };
    expect(mdTable({ ...t, align: [...t.align] })).toBe('| name | n |\n| --- | ---: |\n| a | 1 |\n| bbb | 22 |\n');
    expect(textTable({ ...t, align: [...t.align] })).toBe('name   n\na      1\nbbb   22\n');
    expect(mdTable({ headers: ['x'], rows: [] })).toBe('');
  });

  it('plain cells drop control characters and are shortened', () => {
    expect(plainCell('a\u001b[31mb\tc')).toBe('ab c');
    expect(plainCell('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('formats numbers', () => {
    expect(fmtSeconds(1234)).toBe('1.2 s');
    expect(fmtSeconds(null)).toBe('–');
    expect(fmtPct(0.875)).toBe('87.5%');
    expect(fmtSignedPct(0.12)).toBe('+12.0%');
    expect(fmtSignedPct(-0.05)).toBe('-5.0%');
  });

  it('renders a document both ways', () => {
    const blocks = [
      { kind: 'heading' as const, level: 1 as const, text: ['Run ', { code: 'x|y' }] },
      { kind: 'callout' as const, text: ['still running'] },
      { kind: 'list' as const, items: [[{ strong: 'bold' }, ' item']] },
    ];
    expect(renderMarkdown(blocks)).toBe('## Run `x|y`\n\n> [!WARNING]\n> still running\n\n- **bold** item\n');
    expect(renderText(blocks)).toBe('Run x|y\n=======\n\n!! still running\n\n  - bold item\n');
  });

  it('JSON output is redacted', () => {
    expect(safeJson({ message: 'Bearer abcdefghijkl', n: 1 })).toBe('{\n  "message": "Bearer [REDACTED]",\n  "n": 1\n}\n');
  });
});

describe('textTable at scale', () => {
  it('lays out 130,000 rows without overflowing the stack', () => {
    const rows = Array.from({ length: 130_000 }, (_, i) => [`q${i}`, String(i)]);
    const text = textTable({ headers: ['id', 'n'], rows });
    expect(text.split('\n')[130_000]).toBe('q129999  129999');
  });
});

