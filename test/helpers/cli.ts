// Runs the dsbench CLI as a user does: a child process running what `npm run build` makes (the esbuild
// bundle of scripts/build.ts), built once per test run from the current sources (test/global-setup.ts).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import type { BuiltInputs } from '../../scripts/build.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Cli {
  /** Runs dsbench with a clean environment (no SRC_*, no CI) plus `env`, in the project folder or `cwd`. */
  run(args: string[], env?: Record<string, string>, cwd?: string): Promise<Run>;
  /** Everything any run printed, for secrets checks. */
  printed: string[];
  /** Each file of the built CLI (absolute path) and the source files bundled into it. */
  inputs: BuiltInputs;
}

/** The entry point of the CLI built for this test run, for tests that start it their own way. */
export function builtCliMain(): string {
  return path.join(inject('builtCli').dir, 'dist/cli/main.js');
}

/** The CLI of this test run, with its own record of what it printed. */
export function prepareCli(): Cli {
  const { inputs } = inject('builtCli');
  const command = [builtCliMain()];
  const printed: string[] = [];
  const run = (args: string[], env: Record<string, string> = {}, cwd: string = ROOT) =>
    new Promise<Run>((resolve, reject) => {
      const child = spawn(process.execPath, [...command, ...args], {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TMPDIR: process.env.TMPDIR ?? '/tmp', NO_COLOR: '1', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
        // A safety net for a hung child, not a wait: a loaded machine (CI beside other jobs) can take well
        // over 15 s for a run; each test's own timeout still bounds it.
        timeout: 90_000,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => {
        printed.push(stdout, stderr);
        resolve({ code, stdout, stderr });
      });
    });
  return { run, printed, inputs: new Map(inputs) };
}
