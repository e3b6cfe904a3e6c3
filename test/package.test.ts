// The package as npm ships it: what `npm pack` puts in the tarball (package.json `files`) and that, laid out
// as npm installs it for a project (dsbench in node_modules, its dependencies hoisted beside it), the CLI runs
// from a folder of the user's with nothing from the checkout. `.ci/packed-smoke` does the same with a real
// `npm pack` and `npm install -g`, which take too long for the test suite.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCliMain, ROOT } from './helpers/cli.js';

const run = promisify(execFile);
const SHIPPED = ['package.json', 'README.md', 'docs', 'suites', 'schemas', 'dashboards', 'examples'];

/** A user's suite about a package the project installed beside dsbench (the corpus is that folder). */
const SUITE = `name: mine
defaults: { timeout: 30m }
questions:
  - id: retry
    question: Where is RetryHandler implemented in undici?
    expect: { sourcesInclude: github.com/npm/undici }
searches:
  - id: retry-count
    query: 'repo:^github\\.com/npm/undici$ RetryHandler count:all'
    expect: { exhaustive: true, minCount: 1 }
`;

let work: string;
let packed: string[];
let installed: string;

/** A copy of the checkout's shipped folders, this test run's build as dist/ and files that must stay out. */
function packageFolder(): string {
  const dir = path.join(work, 'checkout');
  for (const entry of SHIPPED) cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  cpSync(path.dirname(path.dirname(builtCliMain())), path.join(dir, 'dist'), { recursive: true });
  for (const decoy of ['test/a.test.ts', 'bench/a.ts', 'src/a.ts', 'scripts/a.ts', 'dist/cli/main.js.map', 'tsconfig.json']) {
    mkdirSync(path.dirname(path.join(dir, decoy)), { recursive: true });
    writeFileSync(path.join(dir, decoy), '{}');
  }
  return dir;
}

/** `<project>/node_modules/dsbench` holding the packed files, the checkout's packages hoisted beside it. */
function installAsDependency(from: string, files: string[]): string {
  const modules = path.join(work, 'project', 'node_modules');
  for (const file of files) cpSync(path.join(from, file), path.join(modules, 'dsbench', file));
  for (const entry of readdirSync(path.join(ROOT, 'node_modules'))) {
    if (entry.startsWith('.') || entry === 'dsbench') continue;
    symlinkSync(path.join(ROOT, 'node_modules', entry), path.join(modules, entry));
  }
  return path.join(modules, 'dsbench');
}

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'dsbench-package-'));
  const checkout = packageFolder();
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: checkout });
  packed = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path).sort();
  installed = installAsDependency(checkout, packed);
}, 60_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed tarball', () => {
  it('holds the built CLI, the suites and their schema, the schemas of the JSON outputs, the README, the docs and the CI examples', () => {
    for (const file of ['package.json', 'README.md', 'dist/cli/main.js', 'suites/smoke.yaml', 'suites/suite.schema.json', 'schemas/report.v1.schema.json', 'schemas/compare.v1.schema.json', 'schemas/history.v1.schema.json', 'schemas/notify.v1.schema.json', 'docs/cli.md', 'docs/ci.md', 'examples/ci/github-nightly.yml', 'examples/kubernetes/cronjob.yaml']) {
      expect(packed).toContain(file);
    }
    expect(packed.filter((f) => f.startsWith('dist/chunks/')).length).toBeGreaterThan(10);
  });

  it('holds no tests, benchmarks, sources, scripts, source maps or build settings', () => {
    expect(packed.filter((f) => /^(test|bench|src|scripts)\/|\.map$|^tsconfig/.test(f))).toEqual([]);
  });
});

describe('installed as a dependency of another project', () => {
  const dsbench = (args: string[], cwd: string) =>
    run(process.execPath, [path.join(installed, 'dist/cli/main.js'), ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), NO_COLOR: '1', DSBENCH_EMULATOR_TIME_SCALE: '0.02' },
      timeout: 90_000,
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
    );

  it('runs a suite on the embedded emulator, whose corpus is where npm put its dependencies, from any folder', async () => {
    const user = path.join(work, 'user-repo');
    mkdirSync(user);
    writeFileSync(path.join(user, 'mine.yaml'), SUITE);
    for (let i = 0; i < 2; i++) {
      // The embedded emulator sped up as the README test does (DSBENCH_EMULATOR_TIME_SCALE paces ask and search, not run).
      const result = await dsbench(['run', 'mine.yaml', '--db', 'nightly.db', '--reporter', 'quiet', '--emulator-time-scale', '0.02'], user);
      // On a loaded machine a sped-up answer may pass its scaled timeout: a failed check (1) still records the run.
      expect(result.stderr).not.toMatch(/internal error|corpus folder not found/);
      expect(result.stdout).toMatch(/Run \d completed/);
      expect(result.code, result.stderr).toBe(0);
    }
    const report = await dsbench(['report', '2', '--db', 'nightly.db', '--html', '--out', 'report'], user);
    expect(report.stderr).not.toMatch(/error/i);
    const compare = await dsbench(['compare', '1', '2', '--db', 'nightly.db', '--html', '--out', 'compare'], user);
    expect(compare.stderr).not.toMatch(/internal error/);
    expect(existsSync(path.join(user, 'report/report.html'))).toBe(true);
    expect(existsSync(path.join(user, 'compare/compare.html'))).toBe(true);
  }, 90_000);
});
