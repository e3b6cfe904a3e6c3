// The viewer's screenshots in the README and docs/view.md: the emulator's nightly suite run twice (the
// second with a real service's noise: errors, slow and flaky answers), served by `dsbench view`, and its
// pages photographed in headless chromium. Needs chromium (/usr/bin/chromium or CHROMIUM_PATH).
// Run: node --import tsx bench/view/screenshots.ts [--out docs/images] [--db FILE (kept: run when missing)]
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { runCli } from '../../src/cli/cli.js';
import { startViewer } from '../../src/view/server.js';
import { benchArgs, chromiumPath, launchBrowser } from '../lib/browser-bench.js';

const { option } = benchArgs();
const out = path.resolve(option('out') ?? 'docs/images');
const executable = chromiumPath();

async function dsbench(args: string[]): Promise<void> {
  let stderr = '';
  const code = await runCli(args, { stdout: { write: () => {} }, stderr: { write: (text: string) => (stderr += text) }, env: {}, cwd: process.cwd() });
  // A run whose checks failed exits non-zero: that is what the screenshots show.
  if (code !== 0 && code !== 1) throw new Error(`dsbench ${args.join(' ')} exited ${code}: ${stderr}`);
}

/** The page once its figures arrived, at the size of a laptop's window. */
async function shoot(page: Page, url: string, file: string): Promise<void> {
  await page.goto(url);
  // A selector, not a function: the viewer's Content-Security-Policy forbids evaluating strings.
  await page.waitForSelector('[aria-busy=true]', { state: 'detached' });
  await page.screenshot({ path: path.join(out, file) });
  process.stderr.write(`wrote ${path.join(out, file)}\n`);
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-view-shots-'));
try {
  const db = option('db') ?? path.join(dir, 'results.db');
  if (!existsSync(db)) {
    await dsbench(['run', 'suites/nightly.yaml', '--db', db, '--label', 'nightly', '--quiet']);
    await dsbench(['run', 'suites/nightly.yaml', '--db', db, '--label', 'nightly', '--emulator-noise', 'realistic', '--quiet']);
  }
  const viewer = await startViewer({ db, host: '127.0.0.1', port: 0 });
  const context = await launchBrowser(executable, dir);
  try {
    mkdirSync(out, { recursive: true });
    const page = await context.newPage();
    await page.setViewportSize({ width: 1400, height: 1100 });
    // The README's picture: a night's failing items, what a team looks at first.
    await shoot(page, `${viewer.url}/runs/2?check=failed`, 'view-run.png');
  } finally {
    await context.close();
    await viewer.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
