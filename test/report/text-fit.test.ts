import { describe, expect, it } from 'vitest';
import { renderText } from '../../src/report/document.js';
import { textTable } from '../../src/report/tables.js';
import { fitTable, textWidth, wrapLine, wrapText } from '../../src/report/text-fit.js';

// A metrics table like compare's (many columns of numbers with units and intervals) and a runs table
// like `dsbench runs`' (a long free-text cell), the shapes that ran past 120 columns.
const METRICS = {
  headers: ['metric', 'pairs', 'questions', 'baseline median', 'candidate median', 'median Δ', 'Δ interval', 'relative Δ', 'relative interval', 'threshold', 'detectable', 'verdict'],
  align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'] as ('left' | 'right')[],
  rows: [
    ['latency', '27', '11', '144.00 s', '300.00 s', '+131.00 s', '+79.00 s … +164.50 s', '+78.6%', '+38.9% … +121.7%', '+20.0%', '+68.0%', 'REGRESSED'],
    ['search latency', '13', '5', '2.38 s', '2.27 s', '+0.00 s', '-0.63 s … +0.35 s', '+0.0%', '-33.0% … +44.9%', '+20.0%', '+122.2%', 'unchanged'],
    ['credits', '0', '0', '–', '–', '–', '–', '–', '–', '+10.0%', '–', 'not measured'],
  ],
};

const RUNS = {
  headers: ['id', 'label', 'suite', 'targets', 'started', 'status', 'verdict', 'items', 'outcomes', 'checks', 'credits'],
  rows: Array.from({ length: 8 }, (_, i) => [
    String(i + 1),
    `nightly-2026-11-${10 + i}`,
    'nightly',
    'staging,production (emulated)',
    `2026-11-${10 + i}T02:00:00.000Z`,
    'completed',
    'checks failed (exit 1); vs baseline regressed',
    '1,047',
    'completed 1,024, error 12, timeout 3, limit_hit 8',
    '15 of 72 failed',
    '3,412.75',
  ]),
};

const ERRORS = {
  headers: ['target', 'kind', 'state', 'code', 'raw code', 'items', 'message'],
  align: ['left', 'left', 'left', 'left', 'left', 'right', 'left'] as ('left' | 'right')[],
  // More rows than a table is turned for.
  rows: Array.from({ length: 7 }, (_, i) =>
    i % 2 === 0
      ? ['default', 'question', 'error', 'INTERNAL', 'ERROR_INTERNAL', String(8 + i), 'An internal error occurred while the agent was searching; the request took 150.0 s before it failed and it was not retried by the server']
      : ['default', 'question', 'error', 'TOKEN_LIMIT_EXCEEDED', 'ERROR_TOKEN_LIMIT_EXCEEDED', String(i), 'The search used more tokens than the limit of 200,000 allows for one conversation'],
  ),
};

/** Every word of every cell, as the table gave it. */
const wordsIn = (table: { headers: string[]; rows: string[][] }): string[] => [...table.headers, ...table.rows.flat()].flatMap((c) => c.split(/\s+/)).filter((w) => w !== '');

/** The text's words: what a reader can find in it, whatever the layout. */
const wordsOut = (text: string): Set<string> => new Set(text.split(/[\s:]+/).filter((w) => w !== ''));

describe('tables fitted to a width', () => {
  it.for([80, 100, 120])('at %i columns every line fits and every word of every cell is there, whole', (width) => {
    for (const table of [METRICS, RUNS, ERRORS]) {
      const natural = textTable(table, 10_000);
      expect(Math.max(...natural.split('\n').map(textWidth))).toBeGreaterThan(120);
      const text = textTable(table, width);
      for (const line of text.split('\n')) expect(textWidth(line), line).toBeLessThanOrEqual(width);
      const found = wordsOut(text);
      for (const word of wordsIn(table)) expect(found.has(word) || found.has(`${word}:`) || text.includes(word), `${word} at ${width}`).toBe(true);
    }
  });

  it('a table that fits is laid out as before: aligned, two spaces apart, no rule', () => {
    expect(textTable({ headers: ['name', 'n'], rows: [['a', '1'], ['bbb', '22']], align: ['left', 'right'] }, 80)).toBe('name   n\na      1\nbbb   22\n');
  });

  it('too wide, its cells wrap within their columns at spaces, a number stays with its unit, the header has a rule under it', () => {
    const text = textTable(ERRORS, 120);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^target\s+kind\s+state\s+code\s+raw code\s+items\s+message$/);
    expect(lines[1]).toMatch(/^-+ +-+ +-+/);
    for (const line of lines) expect(textWidth(line)).toBeLessThanOrEqual(120);
    // The rows stay rows: each starts with its target, its message continues under the message column.
    expect(lines.filter((l) => l.startsWith('default '))).toHaveLength(ERRORS.rows.length);
    const column = lines[0]!.indexOf('message');
    expect(lines[3]!.slice(0, column).trim()).toBe('');
    expect(lines[3]!.slice(column)).toMatch(/^\S/);
    // "150.0 s" is never split between its number and its unit.
    expect(text).toContain('150.0 s');
  });

  it.for([80, 120])('a table of a few rows that cannot fit side by side at %i columns is turned: a column per row', (width) => {
    const text = textTable(METRICS, width);
    expect(text.split('\n')[0]).toMatch(/^metric\s+latency\s+search latency\s+credits$/);
    expect(text).toMatch(/\nthreshold\s+\+20\.0%\s+\+20\.0%\s+\+10\.0%\n/);
    expect(text).toMatch(/\nΔ interval\s+\+79\.00 s … \+164\.50 s\s+-0\.63 s … \+0\.35 s\s+–\n/);
  });

  it('a wrapped table takes the fewest lines a row can: the runs table at 120 columns, 3 lines a run', () => {
    const runs = { headers: RUNS.headers, rows: RUNS.rows.map((r) => r.map((c, i) => (i === 3 ? 'production (emulated)' : i === 4 ? c.slice(0, 19).replace('T', ' ') : c))) };
    const text = textTable(runs, 120);
    const lines = text.trimEnd().split('\n');
    for (const line of lines) expect(textWidth(line)).toBeLessThanOrEqual(120);
    const starts = lines.map((l, i) => (/^\s*\d+ /.test(l) ? i : -1)).filter((i) => i >= 0);
    expect(starts).toHaveLength(runs.rows.length);
    // Narrowing the widest column first gave these rows 5 lines each.
    const heights = starts.map((s, i) => (starts[i + 1] ?? lines.length) - s);
    expect(Math.max(...heights)).toBeLessThanOrEqual(3);
    for (const word of wordsIn(runs)) expect(text, word).toContain(word);
  });

  it('a table whose cells would wrap into more than 5 lines is one block per row instead', () => {
    const text = textTable(ERRORS, 100);
    expect(text.trimEnd().split('\n\n')).toHaveLength(ERRORS.rows.length);
    expect(text).toMatch(/^target: +default\nkind: +question\n/);
  });

  it('a table of many rows that cannot fit side by side is one block of `header: value` lines per row', () => {
    const text = textTable(RUNS, 80);
    const blocks = text.trimEnd().split('\n\n');
    expect(blocks).toHaveLength(8);
    expect(blocks[0]).toMatch(/^id: +1\nlabel: +nightly-2026-11-10\n/);
    expect(blocks[0]).toContain('\nverdict:  checks failed (exit 1); vs baseline regressed\n');
  });

  it('server text in a cell stays sanitised when wrapped', () => {
    const text = textTable({ headers: ['id', 'reason'], rows: [['q1', `${'word '.repeat(40)}\u001b]52;c;evil\u0007 sgp_abcdef1234567890 end`]] }, 60);
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('sgp_abcdef1234567890');
    for (const line of text.split('\n')) expect(textWidth(line)).toBeLessThanOrEqual(60);
  });
});

describe('text fitted to a width', () => {
  it('wraps a long line at spaces, its continuation under its first word', () => {
    const line = `  - pass-rate: pass rate 94.4% → 100.0%, +5.6 points (95% CI +0.0 to +17.4 points), p = 1.0 against a level of 0.024; could have detected a drop of 30.3 points`;
    const lines = wrapLine(line, 80, 2);
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(textWidth(l)).toBeLessThanOrEqual(80);
    expect(lines[0]!.startsWith('  - pass-rate:')).toBe(true);
    expect(lines.slice(1).every((l) => l.startsWith('    ') && !l.startsWith('     '))).toBe(true);
    expect(lines.map((l) => l.trim()).join(' ')).toBe(line.trim());
  });

  it('a word wider than the line is never cut: it takes a line of its own', () => {
    const path = `/tmp/${'a-long-folder-name/'.repeat(6)}compare.csv`;
    expect(wrapText(`Files: ${path} written`, 60)).toBe(`Files:\n${path}\nwritten`);
  });

  it('renders paragraphs, lists and callouts within the width; a command in a code span stays on one line', () => {
    const command = 'dsbench report --history 7 --db results/nightly.db';
    const text = renderText(
      [
        { kind: 'para', text: [`Next: read the questions listed below side by side in compare.csv; for a metric, compare the nights in `, { code: command }, ' (load and version).'] },
        { kind: 'callout', text: ['Failed: latency regression (regressed (median +78.6%, CI 38.9% to 121.7%), threshold 20.0%) and more words here.'] },
        { kind: 'list', items: [['new-errors: error rate 6.4% → 17.0%, +10.6 points (95% CI −8.9 to +29.4 points), p = 0.22 against a level of 0.024']] },
      ],
      80,
    );
    for (const line of text.split('\n')) expect(textWidth(line), line).toBeLessThanOrEqual(80);
    expect(text.split('\n').some((l) => l.includes(command))).toBe(true);
    expect(text).toMatch(/^!! Failed: .*\n {3}\S/m);
    expect(text).toMatch(/^ {2}- new-errors: .*\n {4}\S/m);
  });

  it('fits the same cells the same way each time (no state between calls)', () => {
    const rows = [METRICS.headers, ...METRICS.rows];
    expect(fitTable(rows, METRICS.align, 100)).toBe(fitTable(rows, METRICS.align, 100));
  });
});
