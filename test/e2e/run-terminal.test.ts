// The resume command on a real terminal: dsbench runs in tmux (a pseudo-terminal of a given width, so the
// progress bar is drawn), Ctrl-C is typed, and the screen is read back. The command must be whole on the
// screen, on a line of its own, in the notice written above the bar and again at the end of the summary,
// whether the terminal is wider than it or not.
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { peek, ROOT, turnsProcessing, until } from '../runner/fixtures/cli.js';
import { CORPUS_SEARCH, cleanup, emulator, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const socket = `dsbench-test-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

afterAll(async () => {
  if (hasTmux) spawnSync('tmux', ['-L', socket, 'kill-server']);
  await cleanup();
});

const SUITE = `name: terminal
defaults:
  concurrency: 2
  poll: { strategy: fixed, interval: 50ms, min: 20ms }
questions:
${Array.from({ length: 6 }, (_, i) => `  - id: q${i}\n    question: Where is handler${i} implemented?\n`).join('')}`;

describe.skipIf(!hasTmux).concurrent('the resume command on a terminal', () => {
  it.for([60, 160])('at %i columns: whole, on a line of its own, above the bar and at the end of the summary', { timeout: 60_000 }, async (columns, { expect }) => {
    const e = await emulator({ seed: 5, timeScale: 0.2, medianMs: 50_000, sigma: 0 }, CORPUS_SEARCH);
    // A database path long enough that the command is wider than 60 columns.
    const dbPath = path.join(tempDir(), 'a-results-database-with-a-long-name.db');
    const script = path.join(tempDir(), 'run.sh');
    writeFileSync(
      script,
      // The shell outlives the Ctrl-C (a trap, which its child does not inherit) to say how dsbench exited.
      `trap true INT\ncd ${JSON.stringify(ROOT)}\nSRC_ACCESS_TOKEN=${e.adminToken} ${JSON.stringify(process.execPath)} --import tsx src/cli/main.ts run ${writeSuite(SUITE)} --endpoint ${e.url} --db ${dbPath} --grace 100ms\necho "exited $?"\nsleep 600\n`,
    );
    const session = `c${columns}`;
    tmux('new-session', '-d', '-s', session, '-x', String(columns), '-y', '50', `sh ${script}`);
    await until('a question processing', () => peek(dbPath, (db) => turnsProcessing(db) > 0), 30_000);
    tmux('send-keys', '-t', session, 'C-c');
    // -J joins the lines the terminal wrapped: what a user copies.
    const screen = await until('dsbench to exit', () => {
      const text = tmux('capture-pane', '-p', '-J', '-t', session, '-S', '-');
      return text.includes('exited ') && text;
    }, 30_000);
    const lines = screen.split('\n').map((l) => l.trimEnd());
    const command = `  npx dsbench run --resume 1 --db ${dbPath}`;
    expect(screen).toContain('exited 4');
    const notice = lines.findIndex((l) => l.includes('SIGINT: launching nothing more'));
    const summary = lines.findIndex((l) => l.startsWith('Run 1 aborted in'));
    expect(notice, screen).toBeGreaterThanOrEqual(0);
    // The notice's own line, then the command alone on the next, before the summary; and once more after it.
    expect(lines[notice]!.endsWith('Continue later with:'), screen).toBe(true);
    expect(lines[notice + 1], screen).toBe(command);
    expect(notice + 1).toBeLessThan(summary);
    expect(lines.slice(summary).filter((l) => l === command), screen).toHaveLength(1);
  });
});
