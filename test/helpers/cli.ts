// Runs the dsbench CLI as a user does: a child process running what `npm run build` makes (the esbuild
// bundle of scripts/build.ts), built once per test file from the current sources, so it is never stale.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCli, type BuiltInputs } from '../../scripts/build.js';

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
  dispose(): void;
}

/** Prepares the CLI once per test file (the output folder is per process, so files may run in parallel). */
export async function prepareCli(): Promise<Cli> {
  const out = path.join(ROOT, 'node_modules', '.cache', 'dsbench-cli-test', String(process.pid));
  const inputs = await buildCli(path.join(out, 'dist'));
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  // src/version.ts reads the nearest package.json; named otherwise than dsbench, so the emulator's corpus is
  // still the project's own node_modules (it looks for the package root by name).
  writeFileSync(path.join(out, 'package.json'), JSON.stringify({ name: 'dsbench-cli-test', version: pkg.version, type: 'module', private: true }));
  const command = [path.join(out, 'dist/cli/main.js')];
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
  return { run, printed, inputs, dispose: () => rmSync(out, { recursive: true, force: true }) };
}
