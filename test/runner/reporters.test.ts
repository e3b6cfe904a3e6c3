// Progress displays (lines, and the bar on a terminal) and the end-of-run summary: they count the same way.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { formatRunSummary } from '../../src/cli/run-summary.js';
import { BarReporter } from '../../src/runner/reporters/bar.js';
import { LinesReporter } from '../../src/runner/reporters/lines.js';
import { StderrLines } from '../../src/runner/reporters/stderr-lines.js';
import { defaultReporter } from '../../src/runner/reporters/index.js';
import { etaText } from '../../src/runner/reporters/reporter.js';
import { FAST, cleanup, corpusDir, emulator, runSuite, suite, target, type CapturingReporter } from './fixtures/harness.js';

afterEach(cleanup);

const MIXED = `
name: mixed
defaults: { concurrency: 1, poll: { strategy: fixed, interval: 1s } }
questions:
  - { id: expected, question: "[[token-limit]] Everything", expect: { state: error, errorCode: TOKEN_LIMIT_EXCEEDED } }
  - { id: unexpected, question: "[[internal-error]] Anything" }
  - { id: fine, question: Where is retryPolicy implemented?, expect: { contains: [no such word anywhere] } }
searches:
  - { id: s1, query: retry, expect: { minCount: 1 } }
`;

async function mixedRun(api: 'legacy' | 'versioned') {
  const e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
  const lines: string[] = [];
  const reporter = new LinesReporter((line) => lines.push(line)) as unknown as CapturingReporter;
  const run = await runSuite(await suite(MIXED), [target({ name: 'main', emulator: e })], { reporter, api });
  run.close();
  return { lines, summary: formatRunSummary(run.result, 'x.db', false) };
}

describe('progress line and summary', () => {
  it('count an error the suite expected as such in both places, and failed checks apart', async () => {
    const { lines, summary } = await mixedRun('legacy');
    expect(lines.at(-1)).toMatch(/^dsbench: 4\/4 done, 0 running, 1 errors \(\+1 expected\), 1 checks failed, \d+ credits, ETA 0 s$/);
    expect(summary).toMatch(/\nErrors: 1 \(\+1 expected\)\. Checks: 3 passed, 1 failed\. Exit code 1\.\n$/);
    // Questions and searches in tables of their own: question states and search verdicts never share one.
    const [, questions, searches] = summary.split(/\n(?=Questions\n|Searches\n)/);
    expect(questions).toMatch(/^Questions\ntarget\s+completed\s+error\s+error \(expected\)\s+credits\s+checks ok\s+checks failed\nmain\s+1\s+1\s+1\s+\d+\s+2\s+1\n$/);
    expect(searches).toMatch(/^Searches\ntarget\s+complete\s+checks ok\s+checks failed\nmain\s+1\s+1\s+0\n/);
  });

  it('say "not measured" for credits where the API reports none (versioned), never 0', async () => {
    const { lines, summary } = await mixedRun('versioned');
    expect(lines.at(-1)).toContain(', credits not measured, ');
    expect(summary).toMatch(/\nmain\s+1\s+1\s+1\s+not measured\s+2\s+1\n/);
  });

  it('the default display: bar on a terminal, lines otherwise, quiet on request', () => {
    expect(defaultReporter(false, true)).toBe('bar');
    expect(defaultReporter(false, false)).toBe('lines');
    expect(defaultReporter(true, true)).toBe('quiet');
  });

  it('ETA reads as a placeholder until a pace is known, then in seconds, minutes or hours', () => {
    expect(etaText(undefined)).toBe('ETA --');
    expect(etaText(42)).toBe('ETA 42 s');
    expect(etaText(65)).toBe('ETA 1m05s');
    expect(etaText(3 * 3600 + 7 * 60 + 9)).toBe('ETA 3h07m');
  });
});

/** A terminal of our own: a TTY stream whose output is replayed into screen lines (\r, \n, clears, column moves). */
function fakeTerminal() {
  const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 140 });
  let output = '';
  stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const screen = () => {
    const lines: string[] = [''];
    let row = 0;
    let col = 0;
    const put = (text: string) => {
      const line = lines[row] ?? '';
      lines[row] = line.padEnd(col).slice(0, col) + text + line.slice(col + text.length);
      col += text.length;
    };
    for (const token of output.match(/\x1b\[\??[0-9;]*[A-Za-z]|\x1b[78]|\r|\n|[^\x1b\r\n]+/g) ?? []) {
      if (token === '\n') [row, col] = [row + 1, 0];
      else if (token === '\r') col = 0;
      else if (token === '\x1b[2K') lines[row] = '';
      else if (/^\x1b\[0?K$/.test(token)) lines[row] = (lines[row] ?? '').slice(0, col);
      else if (/^\x1b\[\d*G$/.test(token)) col = Number(token.slice(2, -1) || 1) - 1;
      else if (!token.startsWith('\x1b')) put(token);
      lines[row] ??= '';
    }
    return lines.filter((l) => l !== '');
  };
  return { stream, screen, output: () => output };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('the bar on a terminal', () => {
  it('first frame shows ETA -- (never NaN or Infinity); a message takes a line of its own and the bar is drawn again below it', async () => {
    const term = fakeTerminal();
    const bar = new BarReporter(term.stream);
    bar.onEvent({ type: 'run-started', at: 0, runId: 1, total: 3, alreadyDone: 0, targets: ['main'] });
    await flush();
    expect(term.screen()).toEqual([expect.stringMatching(/^dsbench \S+ 0\/3 \| running 0 \| 0 errors, 0 checks failed, 0 credits \| ETA --$/)]);
    bar.onEvent({ type: 'item-started', at: 0, key: 'k' });
    bar.onEvent({ type: 'log', at: 0, message: 'RATE_LIMITED on target main: stopped launching (--on-quota stop)' });
    bar.onEvent({ type: 'item-ended', at: 0, key: 'k', summary: { outcome: 'completed', credits: 2, passed: 1, failed: 0 } });
    bar.onEvent({ type: 'run-ended', at: 0, runId: 1 });
    await flush();
    expect(term.output()).not.toMatch(/NaN|Infinity|NFs/);
    expect(term.screen()).toEqual([
      'dsbench: RATE_LIMITED on target main: stopped launching (--on-quota stop)',
      expect.stringMatching(/^dsbench \S+ 1\/3 \| running 0 \| 0 errors, 0 checks failed, 2 credits \| ETA \d+ s$/),
    ]);
  });

  it('during a real run, every message the runner logs lands on its own line, never inside a bar frame', async () => {
    const e = await emulator({ ...FAST, quota: { limit: 1 } });
    const term = fakeTerminal();
    const loaded = await suite(`
name: bar
defaults: { api: legacy, concurrency: 1, poll: { strategy: fixed, interval: 1s } }
questions:
  - { id: q1, question: Where is retryPolicy implemented? }
  - { id: q2, question: Where is backoffDelay implemented? }
  - { id: q3, question: Where is parseSuite defined? }
`);
    const run = await runSuite(loaded, [target({ name: 'main', emulator: e })], { reporter: new BarReporter(term.stream) as unknown as CapturingReporter });
    run.close();
    await flush();
    const screen = term.screen();
    expect(screen).toContain('dsbench: RATE_LIMITED on target main: stopped launching (--on-quota stop)');
    for (const line of screen) expect(line).toMatch(/^dsbench: [^|]*$|^dsbench \S+ \d\/3 \| /);
    expect(screen.at(-1)).toMatch(/^dsbench \S+ 3\/3 \| running 0 \| 1 errors, 0 checks failed, \d+ credits \| ETA 0 s$/);
  });
});

describe('lines for stderr', () => {
  it('are written a batch at a time, in order: when enough wait, after a short delay, and at once when closed', async () => {
    const writes: string[] = [];
    const stderr = new StderrLines((text) => writes.push(text), 20, 3);
    stderr.write('a');
    stderr.write('b');
    expect(writes).toEqual([]);
    stderr.write('c');
    expect(writes).toEqual(['a\nb\nc\n']);
    stderr.write('d');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(writes).toEqual(['a\nb\nc\n', 'd\n']);
    stderr.write('e');
    stderr.close();
    expect(writes).toEqual(['a\nb\nc\n', 'd\n', 'e\n']);
    stderr.close();
    expect(writes).toHaveLength(3);
  });
});
