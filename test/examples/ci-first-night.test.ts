// The nightly workflows' choice of a baseline (README, examples/ci/github-nightly.yml, gitlab-ci.yml), run as
// the shell runs it: on the first night (no database yet) and before a night is blessed it must run without
// one, so that the night can be blessed; once a night is blessed, against window:3 with a second look. A check
// that reads an empty answer as "there are baselines" sends the first night to `window:3`, which has nothing
// to pool: exit 2, no night blessed, and the next night the same.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, builtCliMain, prepareCli } from '../helpers/cli.js';

const cli = prepareCli();
const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-first-night-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each workflow's lines from `baseline=''` to the `fi` of the check that follows it. */
function choices(): Array<[string, string]> {
  const text = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
  const lineOf = (source: string) => {
    const line = source.split('\n').find((l) => l.includes('dsbench baseline list'));
    expect(line, 'a baseline check').toBeDefined();
    return line!.trim().replace(/^- /, '');
  };
  return [
    ['README.md', lineOf(text('README.md'))],
    ['examples/ci/github-nightly.yml', lineOf(text('examples/ci/github-nightly.yml'))],
    ['examples/ci/gitlab-ci.yml', lineOf(text('examples/ci/gitlab-ci.yml'))],
  ];
}

/** What `$baseline` the line leaves in `cwd`, `npx dsbench` being the CLI of this test run. */
function chosen(line: string, cwd: string): string {
  const script = `npx() { shift; node "$DSBENCH_MAIN" "$@"; }\nbaseline=''\n${line}\nprintf %s "$baseline"`;
  return execFileSync('bash', ['-c', script], { cwd, env: { PATH: process.env.PATH ?? '', DSBENCH_MAIN: builtCliMain(), NO_COLOR: '1' }, encoding: 'utf8' });
}

describe('the nightly workflows choose a baseline as the nights come', () => {
  it('none on the first night and until a night is blessed; window:3 with a second look after', async () => {
    const lines = choices();
    for (const [file, line] of lines) expect(chosen(line, dir), `${file}: no database yet`).toBe('');
    const db = path.join(dir, 'results', 'dsbench.db');
    const night = await cli.run(['run', path.join(ROOT, 'suites', 'smoke.yaml'), '--db', db, '--label', 'nightly', '--reporter', 'quiet', '--emulator-time-scale', '0.02']);
    expect(night.stderr).not.toMatch(/internal error/i);
    for (const [file, line] of lines) expect(chosen(line, dir), `${file}: a night, none blessed`).toBe('');
    const blessed = await cli.run(['baseline', 'bless', 'nightly', '--name', 'start', '--force', '--db', db]);
    expect(blessed.code, blessed.stderr).toBe(0);
    for (const [file, line] of lines) expect(chosen(line, dir), `${file}: a blessed night`).toBe('--baseline window:3 --confirm');
  });
});
