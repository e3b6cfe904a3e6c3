// The README's commands that need no recorded run (test/helpers/readme.ts): every other `npx dsbench` line of
// "Quick start" and "Reading results" runs as written (the embedded emulator sped up) and exits 0. A renamed
// flag or command fails here first.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Cli, ROOT, prepareCli } from './helpers/cli.js';
import { FAST, readingCommands } from './helpers/readme.js';

let cli: Cli;

beforeAll(() => {
  cli = prepareCli();
});

describe('the README commands that need no recorded run work as written', () => {
  const { online } = readingCommands();

  it('finds them', () => {
    expect(online.map((c) => c[0])).toEqual(expect.arrayContaining(['ask', 'view', '--help']));
  });

  it.each(online.map((c) => [c.join(' '), c] as const))('npx dsbench %s', async (_, args) => {
    // view serves until interrupted: its server is tested in test/view/; here its command and flags.
    const run = await cli.run(args[0] === 'view' ? [...args, '--help'] : args, FAST);
    expect(run.stderr).not.toContain('internal error');
    expect(run.stderr).not.toContain('Unknown argument');
    expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  }, 60_000);
});

describe('the docs index', () => {
  it('links every page in docs/', () => {
    const index = fs.readFileSync(path.join(ROOT, 'docs/README.md'), 'utf8');
    const pages = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(pages.filter((page) => !index.includes(`](${page})`))).toEqual([]);
  });
});
