// Runs the dsbench CLI as a user does: a child process. Every run is a node process, so start-up
// dominates: the current sources are transpiled once with esbuild (about 0.2 s for the whole CLI) and
// run as plain JavaScript, which starts in well under the time `node --import tsx` takes and, unlike
// dist/, is never stale. Without esbuild (a dependency of tsx), tsx is used.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The source files the CLI loads: static, side-effect and dynamic relative imports, from src/cli/main.ts. */
function cliSources(): string[] {
  const seen = new Set<string>();
  const pending = [path.join(ROOT, 'src/cli/main.ts')];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)\.js['"]/g)) {
      pending.push(path.resolve(path.dirname(file), `${match[1]}.ts`));
    }
  }
  return [...seen];
}

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
  dispose(): void;
}

/** Prepares the CLI once per test file (the output folder is per process, so files may run in parallel). */
export async function prepareCli(): Promise<Cli> {
  const out = path.join(ROOT, 'node_modules', '.cache', 'dsbench-cli-test', String(process.pid));
  let command: string[];
  try {
    const esbuild = await import('esbuild');
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    mkdirSync(out, { recursive: true });
    // src/version.ts reads ../package.json; named otherwise than dsbench, so the emulator's corpus is
    // still the project's own node_modules (it looks for the package root by name).
    writeFileSync(path.join(out, 'package.json'), JSON.stringify({ name: 'dsbench-cli-test', version: pkg.version, type: 'module', private: true }));
    await esbuild.build({
      entryPoints: cliSources(),
      outdir: path.join(out, 'src'),
      outbase: path.join(ROOT, 'src'),
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'silent',
    });
    command = [path.join(out, 'src/cli/main.js')];
  } catch {
    command = ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts')];
  }
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
  return { run, printed, dispose: () => rmSync(out, { recursive: true, force: true }) };
}
