// compare and runs on a real terminal 100 columns wide (tmux): stdout is a terminal, so its width is the
// terminal's; nothing is wider, so the terminal wraps nothing (-J joins back what it wrapped, which would show
// here as a line over 100).
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { textWidth } from '../../src/report/text-fit.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { ROOT, until } from '../runner/fixtures/cli.js';
import { cleanup, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const socket = `dsbench-width-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

afterAll(async () => {
  if (hasTmux) spawnSync('tmux', ['-L', socket, 'kill-server']);
  await cleanup();
});

const SUITE = `name: terminal-width
defaults: { api: legacy, repeats: 2, concurrency: 12, poll: { strategy: fixed, interval: 30ms, min: 10ms } }
questions:
${Array.from({ length: 6 }, (_, i) => `  - id: a-question-with-a-long-identifier-${i}\n    question: "Where is handler${i} implemented?"\n    expect: { state: completed, contains: [handler] }`).join('\n')}
`;

describe.skipIf(!hasTmux)('text output on a terminal 100 columns wide', () => {
  it('compare and runs: every line within 100 columns, the gates and metrics all there', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    const db = path.join(dir, 'nights.db');
    const suite = writeSuite(SUITE, 'suite.yaml', dir);
    const embedded = ['--db', db, '--reporter', 'quiet', '--emulator-time-scale', '0.004'];
    expect((await dsbenchHere(['run', suite, ...embedded])).code).toBe(ExitCode.ok);
    expect((await dsbenchHere(['run', suite, ...embedded, '--emulator-noise', 'realistic'])).code).toBe(ExitCode.expectationsFailed);
    const script = path.join(dir, 'show.sh');
    const dsbench = `${JSON.stringify(process.execPath)} --import tsx src/cli/main.ts`;
    // COLUMNS unset: the width is the terminal's own.
    writeFileSync(script, `unset COLUMNS\ncd ${JSON.stringify(ROOT)}\n${dsbench} compare 1 2 --db ${db}\n${dsbench} runs --db ${db}\necho "shown $?"\nsleep 600\n`);
    tmux('new-session', '-d', '-s', 'w100', '-x', '100', '-y', '50', `sh ${script}`);
    const screen = await until('both commands to print', () => {
      const text = tmux('capture-pane', '-p', '-J', '-t', 'w100', '-S', '-');
      return text.includes('shown ') && text;
    }, 60_000);
    const lines = screen.split('\n').map((l) => l.trimEnd());
    expect(lines.filter((l) => textWidth(l) > 100), screen).toEqual([]);
    expect(screen).toContain('dsbench compare: FAILED');
    expect(screen).toMatch(/^Gates$/m);
    for (const gate of ['latency regression', 'new-errors', 'pass-rate']) expect(screen).toMatch(new RegExp(`^ {2}- ${gate}: `, 'm'));
    expect(screen).toMatch(/^metric +latency/m);
    expect(screen).toMatch(/^id +2 +1$/m);
  });
});
