// Viewer benchmark: a run of N items (default 100,000 items of two turns each, from the report benchmark's
// generator) served by `dsbench view`'s server in this process, opened in headless chromium several times:
// the run page's first contentful paint and its server time, an item page, a filtered page, and the server's
// RSS after all of it. Needs chromium (/usr/bin/chromium or CHROMIUM_PATH).
// Run: node --import tsx bench/view/index.ts [items] [--rounds 5]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startViewer } from '../../src/view/server.js';
import { generate } from '../report/generate.js';

const args = process.argv.slice(2);
const items = Number(args.find((a) => /^\d+$/.test(a)) ?? 100_000);
const roundsAt = args.indexOf('--rounds');
const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 5;
const executable = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && statSync(p, { throwIfNoEntry: false }));
if (!executable) throw new Error('no chromium: install it (apt-get install chromium) or set CHROMIUM_PATH');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const spread = (values: number[], unit: string) => `${median(values).toFixed(0)} ${unit} (${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)})`;
const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-view-bench-'));
try {
  const db = path.join(dir, 'bench.db');
  let started = performance.now();
  const generated = generate(db, items * 2);
  process.stderr.write(`generated ${generated.items} items, ${generated.turns} turns in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  const loadBefore = load();
  const viewer = await startViewer({ db, host: '127.0.0.1', port: 0 });
  const context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: executable,
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const paint: Record<string, number[]> = { run: [], item: [], filtered: [] };
  const server: Record<string, number[]> = { run: [], item: [], filtered: [] };
  const key = encodeURIComponent('prod/question/q0000042/0');
  const pages: Record<string, string> = { run: `/runs/${generated.runId}`, item: `/runs/${generated.runId}/items/${key}`, filtered: `/runs/${generated.runId}?check=failed&sort=latency&order=desc&page=3` };
  try {
    for (let i = 0; i < rounds; i++) {
      for (const [name, route] of Object.entries(pages)) {
        // A new query string each round: nothing is served from a cache of an earlier round.
        const url = `${viewer.url}${route}${route.includes('?') ? '&' : '?'}round=${i}`;
        started = performance.now();
        await (await fetch(url)).text();
        server[name]!.push(performance.now() - started);
        const page = await context.newPage();
        await page.goto(url);
        const fcp = Number(await page.evaluate("performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN"));
        paint[name]!.push(fcp);
        await page.close();
      }
    }
  } finally {
    await context.close();
  }
  const rssMb = process.memoryUsage().rss / 1e6;
  await viewer.close();
  process.stdout.write(
    `View benchmark: ${generated.items.toLocaleString('en-US')} items (${generated.turns.toLocaleString('en-US')} turns), ${rounds} rounds; load ${loadBefore} before, ${load()} after\n\n` +
      `| page | first contentful paint | server time (whole page) |\n|---|---|---|\n` +
      Object.keys(pages).map((name) => `| ${name} (${pages[name]}) | ${spread(paint[name]!, 'ms')} | ${spread(server[name]!, 'ms')} |`).join('\n') +
      `\n\nRSS of the process (viewer and benchmark, after every page): ${rssMb.toFixed(0)} MB\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
