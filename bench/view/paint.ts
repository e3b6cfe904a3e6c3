// First contentful paint of viewer pages against the floor of this machine, in paired, interleaved tabs: a
// two-line page from a bare node server (bench/view/bare.ts), then each page in turn, a new tab each, the
// order rotated every round so no page always follows another. Per page: first contentful paint, when the
// response ended, and the time between (the browser's own work on the page), medians with min-max.
// With --trace, each tab is traced instead and the CPU chromium spent on it before its first paint is counted
// (trace-cpu.ts): what a page costs, less blurred by the machine's load than its wall time.
// Needs chromium (/usr/bin/chromium or CHROMIUM_PATH) and a database (generated when missing).
// Run: node --import tsx bench/view/paint.ts [--db FILE] [--rounds 9] [--set pages|item|'item only'|floor]
//   [--against DIR] [--trace] [--folder DIR --files a,b]
//   --set pages (default): the floor, the item page, the run page and its sorted and filtered pages;
//   --set item: the floor, the item page's HTML from the bare server (alone, with the viewer's headers, without
//   a Content-Length, without its script, without its style sheet), and the item page from the viewer;
//   --against DIR: each viewer page also from the viewer of another checkout (say /work/main), interleaved;
//   --folder DIR --files a,b: DIR/a.html, DIR/b.html too, as they are, from the bare server.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { benchArgs, chromiumPath, launchBrowser, load, median, spread } from '../lib/browser-bench.js';
import { generate } from '../report/generate.js';
import { startPairs } from './pairs.js';
import { GROUPS, type PaintCpu, paintCpu } from './trace-cpu.js';

const { items, option } = benchArgs();
const rounds = Number(option('rounds') ?? 9);
const set = option('set') ?? 'pages';
const tracing = process.argv.includes('--trace');
const executable = chromiumPath();

interface Tab {
  fcp: number;
  responseEnd: number;
}

/** Chromium as bench/lib/browser-bench.ts starts it, as a browser (tracing needs one, not a persistent context). */
async function tracingBrowser() {
  const browser = await chromium.launch({
    executablePath: executable,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return { browser, context: await browser.newContext({ viewport: { width: 1400, height: 1000 } }) };
}

/** A new query string each round: nothing comes from the browser's cache of the page itself. */
const roundAddress = (address: string, marker: string) => `${address}${address.includes('?') ? '&' : '?'}round=${marker}`;

async function openTab(context: BrowserContext, address: string, marker: string): Promise<Tab> {
  const page = await context.newPage();
  await page.goto(roundAddress(address, marker));
  const measured = (await page.evaluate(`new Promise((resolve) => {
    const nav = performance.getEntriesByType('navigation')[0];
    new PerformanceObserver((list) => { const e = list.getEntriesByName('first-contentful-paint')[0]; if (e) resolve({ fcp: e.startTime, responseEnd: nav.responseEnd }); }).observe({ type: 'paint', buffered: true });
    setTimeout(() => resolve({ fcp: NaN, responseEnd: nav.responseEnd }), 10000);
  })`)) as Tab;
  await page.close();
  return measured;
}

/** Every page once per round, the order rotated each round; one unmeasured pass first (a browser's first tab is slower). */
async function interleaved<T>(names: string[], measure: (name: string, marker: string) => Promise<T>): Promise<Record<string, T[]>> {
  const results: Record<string, T[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (const name of names) await measure(name, 'warm');
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]!;
      results[name]!.push(await measure(name, `${round}-${i}`));
    }
  }
  return results;
}

function paintTable(tabs: Record<string, Tab[]>): string {
  const floor = median(tabs['floor']!.map((t) => t.fcp));
  return (
    `| page | first contentful paint | over the floor | response ended | paint after the response |\n|---|---|---|---|---|\n` +
    Object.entries(tabs)
      .map(([name, t]) => {
        const fcp = t.map((x) => x.fcp);
        return `| ${name} | ${spread(fcp, 'ms')} | ${(median(fcp) - floor).toFixed(0)} ms | ${spread(t.map((x) => x.responseEnd), 'ms')} | ${spread(t.map((x) => x.fcp - x.responseEnd), 'ms')} |`;
      })
      .join('\n')
  );
}

function cpuTable(traced: Record<string, PaintCpu[]>): string {
  const floor = median(traced['floor']!.map((t) => t.cpu.total));
  return (
    `| page | paint (traced) | CPU before it, all processes | over the floor | ${GROUPS.join(' | ')} | tiles |\n|---|---|---|---|${GROUPS.map(() => '---|').join('')}---|\n` +
    Object.entries(traced)
      .map(([name, t]) => {
        const total = t.map((x) => x.cpu.total);
        const groups = GROUPS.map((g) => `${median(t.map((x) => x.cpu[g])).toFixed(0)} ms`).join(' | ');
        return `| ${name} | ${spread(t.map((x) => x.paint), 'ms')} | ${spread(total, 'ms')} | ${(median(total) - floor).toFixed(0)} ms | ${groups} | ${median(t.map((x) => x.tiles))} |`;
      })
      .join('\n')
  );
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-view-paint-'));
try {
  const db = option('db') ?? path.join(dir, 'bench.db');
  if (!existsSync(db)) generate(db, items * 2);
  const loadBefore = load();
  const servers = await startPairs({ db, set, against: option('against'), folder: option('folder'), files: (option('files') ?? '').split(',').filter(Boolean) });
  let table: string;
  try {
    const names = Object.keys(servers.pages);
    if (tracing) {
      const { browser, context } = await tracingBrowser();
      try {
        table = cpuTable(
          await interleaved(names, async (name, marker) => {
            const page = await context.newPage();
            await browser.startTracing(undefined, { categories: ['devtools.timeline', 'blink', 'blink.user_timing', 'loading', 'toplevel', 'navigation', 'cc', 'viz', 'benchmark'] });
            await page.goto(roundAddress(servers.pages[name]!, marker));
            await page.evaluate(`new Promise((resolve) => new PerformanceObserver((l) => { if (l.getEntriesByName('first-contentful-paint')[0]) resolve(); }).observe({ type: 'paint', buffered: true }))`);
            const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: Parameters<typeof paintCpu>[0] };
            await page.close();
            return paintCpu(trace.traceEvents, `round=${marker}`);
          }),
        );
      } finally {
        await browser.close();
      }
    } else {
      const context = await launchBrowser(executable, dir);
      try {
        table = paintTable(await interleaved(names, (name, marker) => openTab(context, servers.pages[name]!, marker)));
      } finally {
        await context.close();
      }
    }
  } finally {
    servers.stop();
  }
  process.stdout.write(`Paint${tracing ? ', traced' : ''}, set ${set}: ${rounds} rounds, pages interleaved; load ${loadBefore} before, ${load()} after\n\n${table}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
