// Signals on `dsbench ask`: the first cancels the question being answered on the server (an interrupted ask
// must not go on spending quota) and exits 4; a second exits at once.
import { afterAll, describe, it } from 'vitest';
import type { EmulatorOptions } from '../../src/emulator/index.js';
import { startCli, until } from '../runner/fixtures/cli.js';
import { cleanup, emulator, op } from '../runner/fixtures/harness.js';

afterAll(cleanup);

/** Answers in about 20 s of real time: the signal always comes while the question is processing. */
const LONG: EmulatorOptions = { timeScale: 0.4, medianMs: 50_000, sigma: 0 };

describe.concurrent('ask: signals', () => {
  it.for(['legacy', 'versioned'] as const)('SIGINT while the answer is awaited (%s API): the question is cancelled on the server, exit 4', { timeout: 40_000 }, async (api, { expect }) => {
    const e = await emulator({ seed: 3, ...LONG });
    const child = startCli(['ask', 'Where is retryPolicy defined?', '--followup', 'Never asked', '--api', api, '--endpoint', e.url, '--poll-interval', '20ms'], {
      SRC_ACCESS_TOKEN: e.adminToken,
    });
    await until('a poll', () => e.counters()[op(api, 'get')]! > 0, 20_000);
    child.process.kill('SIGINT');
    const exit = await child.exited;
    expect(exit.code, exit.stderr).toBe(4);
    expect(exit.stderr).toContain('dsbench: SIGINT: cancelling the question on the server, then exiting');
    expect(exit.stderr).toMatch(/dsbench: asked the server to cancel question 1 of conversation \S+/);
    expect(exit.stdout).toBe('');
    expect(e.counters()[op(api, 'cancel')]).toBe(1);
    expect(e.counters()[op(api, 'addQuestion')] ?? 0).toBe(0);
    expect(e.questionRecords().map((q) => q.outcome)).toEqual(['cancelled']);
  });

  it('a second SIGINT while the cancel is under way exits at once', async ({ expect }) => {
    const e = await emulator({ seed: 4, ...LONG });
    e.injectFault({ operation: op('versioned', 'cancel'), kind: 'slow', delayMs: 60_000 });
    const child = startCli(['ask', 'Where is retryPolicy defined?', '--endpoint', e.url, '--poll-interval', '20ms'], { SRC_ACCESS_TOKEN: e.adminToken });
    await until('a poll', () => e.counters()[op('versioned', 'get')]! > 0, 20_000);
    child.process.kill('SIGINT');
    await until('the cancel sent', () => e.counters()[op('versioned', 'cancel')]! > 0, 10_000);
    child.process.kill('SIGINT');
    const exit = await child.exited;
    expect(exit.code, exit.stderr).toBe(4);
    expect(exit.stderr).toContain('dsbench: SIGINT again: exiting without cancelling the question');
  }, 40_000);
});
