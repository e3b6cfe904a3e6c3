// runCli, the command line as a function: importing it changes nothing in the process (the binary,
// main.ts, installs the signal handlers and sets the exit code), and a command line run through it uses the
// io it is given: its output streams, its environment and its working directory.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { CliIo } from '../../src/cli/cli.js';
import { tempDir } from '../runner/fixtures/harness.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function capture(cwd: string, env: Record<string, string> = {}) {
  const out = { stdout: '', stderr: '' };
  const io: CliIo = { stdout: { write: (text: string) => (out.stdout += text) }, stderr: { write: (text: string) => (out.stderr += text) }, env, cwd };
  return { io, out };
}

describe('runCli', () => {
  it('is imported without handling signals or reading the command line, and writes only to its io', async () => {
    const before = SIGNALS.map((signal) => process.listenerCount(signal));
    const write = { out: vi.spyOn(process.stdout, 'write'), err: vi.spyOn(process.stderr, 'write') };
    try {
      // Imported here, not at the top: what the import itself does is what is checked.
      const { runCli } = await import('../../src/cli/cli.js');
      expect(SIGNALS.map((signal) => process.listenerCount(signal))).toEqual(before);
      const help = capture(process.cwd());
      expect(await runCli(['--help'], help.io)).toBe(ExitCode.ok);
      expect(help.out.stdout).toMatch(/^dsbench <command>\n/);
      expect(help.out.stdout).toContain('dsbench run [suite]');
      const usage = capture(process.cwd());
      expect(await runCli(['runs', '--limt', '3'], usage.io)).toBe(ExitCode.usage);
      expect(usage.out.stderr).toBe('dsbench: Unknown argument: limt\n--limt: did you mean --limit?\nRun dsbench --help (or dsbench <command> --help) for usage.\n');
      expect(write.out).not.toHaveBeenCalled();
      expect(write.err).not.toHaveBeenCalled();
      expect(process.exitCode).toBeUndefined();
    } finally {
      write.out.mockRestore();
      write.err.mockRestore();
    }
  });

  it("reads relative paths from io.cwd and the environment from io.env, not the process's", async () => {
    const { runCli } = await import('../../src/cli/cli.js');
    const dir = tempDir('dsbench-run-cli-');
    writeFileSync(path.join(dir, 'questions.jsonl'), '{"id": "a", "question": "Where is retryPolicy?"}\n');
    const imported = capture(dir);
    expect(await runCli(['suite', 'import', 'questions.jsonl'], imported.io)).toBe(ExitCode.ok);
    expect(existsSync(path.join(dir, 'questions.yaml'))).toBe(true);
    expect(existsSync(path.join(process.cwd(), 'questions.yaml'))).toBe(false);
    const missing = capture(dir);
    expect(await runCli(['runs', '--db', 'none.db'], missing.io)).toBe(ExitCode.usage);
    expect(missing.out.stderr).toContain(`no results database at ${path.join(dir, 'none.db')}`);
    // The embedded emulator's pace comes from io.env: a bad value there is refused, whatever the process has.
    const badScale = capture(dir, { DSBENCH_EMULATOR_TIME_SCALE: 'fast' });
    expect(await runCli(['ask', 'Where?'], badScale.io)).toBe(ExitCode.usage);
    expect(badScale.out.stderr).toMatch(/^dsbench: DSBENCH_EMULATOR_TIME_SCALE: "fast" is not a positive number/);
  });
});
