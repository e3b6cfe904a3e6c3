// What dsbench prints fits the terminal: COLUMNS when set, the terminal's width on a terminal, else 120 (a CI
// log). Two nights on the embedded emulator, the second with the realistic noise so that gates fail and their
// details run long: compare, runs, report and history print no line wider than that.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textWidthFor } from '../../src/cli/text-width.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { textWidth } from '../../src/report/text-fit.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { cleanup, tempDir, writeSuite } from '../runner/fixtures/harness.js';

afterAll(cleanup);

const SUITE = `name: widths-of-a-nightly-suite-with-a-long-name
defaults: { api: legacy, repeats: 2, concurrency: 12, poll: { strategy: fixed, interval: 30ms, min: 10ms } }
questions:
${Array.from({ length: 8 }, (_, i) => `  - id: question-with-a-long-identifier-${i}\n    question: "Where is handler${i} implemented?"\n    tags: [storage, validation]\n    expect: { state: completed, contains: [handler] }`).join('\n')}
`;

const widest = (text: string): number => Math.max(...text.split('\n').map(textWidth));

/** Lines wider than `width` but those of one word (a path, a command), which are never cut. */
const overflowing = (text: string, width: number): string[] => text.split('\n').filter((l) => textWidth(l) > width && /\S\s+\S/.test(l.replace(/^\s*- /, '')));

describe('the width text is fitted to', () => {
  const tty = (columns: number) => ({ write: () => true, isTTY: true, columns });
  const pipe = { write: () => true };

  it('is COLUMNS when set, else the terminal\'s when stdout is one, else 120', () => {
    expect(textWidthFor({ stdout: pipe, env: {} })).toBe(120);
    expect(textWidthFor({ stdout: tty(87), env: {} })).toBe(87);
    expect(textWidthFor({ stdout: tty(87), env: { COLUMNS: '100' } })).toBe(100);
    expect(textWidthFor({ stdout: pipe, env: { COLUMNS: '200' } })).toBe(200);
    // Not a width: ignored. Narrower than a table can be laid out in: the narrowest that can.
    expect(textWidthFor({ stdout: pipe, env: { COLUMNS: 'wide' } })).toBe(120);
    expect(textWidthFor({ stdout: tty(0), env: { COLUMNS: '' } })).toBe(120);
    expect(textWidthFor({ stdout: tty(12), env: {} })).toBe(40);
  });
});

describe('text output on realistic nights', () => {
  let db = '';
  beforeAll(async () => {
    const dir = tempDir();
    db = path.join(dir, 'a-results-database.db');
    const suite = writeSuite(SUITE, 'suite.yaml', dir);
    const embedded = ['--db', db, '--reporter', 'quiet', '--emulator-time-scale', '0.004'];
    const first = await dsbenchHere(['run', suite, ...embedded]);
    expect(first.code, first.stderr).toBe(ExitCode.ok);
    const second = await dsbenchHere(['run', suite, ...embedded, '--emulator-noise', 'realistic', '--label', 'a-night-with-the-service-noise']);
    // Its checks fail (the noise's errors and off-topic answers): the summary's list of them runs long.
    expect(second.code, second.stderr).toBe(ExitCode.expectationsFailed);
    expect(second.stdout).toContain('Failing items');
    expect(widest(second.stdout), second.stdout).toBeLessThanOrEqual(120);
  }, 120_000);

  it('compare, runs, report and report --history: no line over 120 columns off a terminal', async () => {
    const compare = await dsbenchHere(['compare', '1', '2', '--db', db]);
    expect(compare.code, compare.stderr).toBe(ExitCode.expectationsFailed);
    expect(compare.stdout).toContain('Gates');
    const runs = await dsbenchHere(['runs', '--db', db]);
    const report = await dsbenchHere(['report', '2', '--db', db]);
    const history = await dsbenchHere(['report', '--history', '2', '--detect', '--db', db]);
    for (const out of [compare, runs, report, history]) {
      expect(out.stderr).toBe('');
      expect(widest(out.stdout), out.stdout).toBeLessThanOrEqual(120);
    }
    // Nothing the wide layout said is lost: the same words at any width.
    const wide = await dsbenchHere(['runs', '--db', db], { COLUMNS: '10000' });
    expect(widest(wide.stdout)).toBeGreaterThan(120);
    const words = (text: string) => [...new Set(text.split(/[\s:]+/).filter((w) => w !== '' && !/^-+$/.test(w)))].sort();
    expect(words(runs.stdout)).toEqual(words(wide.stdout));
  });

  it('COLUMNS=80: compare and runs fit 80 columns', async () => {
    for (const args of [['compare', '1', '2'], ['runs']]) {
      const out = await dsbenchHere([...args, '--db', db], { COLUMNS: '80' });
      expect(overflowing(out.stdout, 80), out.stdout).toEqual([]);
    }
  });
});
