// Viewer benchmark: a run of N items (default 100,000 items of two turns each, from the report benchmark's
// generator) served by `dsbench view`'s server in a process of its own (plain JavaScript, as the built CLI
// runs), its pages opened in headless chromium several times: the run page's first contentful paint and its
// server time, an item page, the slowest items, a filtered and sorted page, a text search, the run's figures
// (the report's sections, counted once per run), and the server's resident memory after all of it.
// Needs chromium (/usr/bin/chromium or CHROMIUM_PATH).
// Run: node --import tsx bench/view/index.ts [items] [--rounds 5] [--db FILE (kept: generated when missing)]
import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { benchArgs, chromiumPath, launchBrowser, load, spread } from '../lib/browser-bench.js';
import { transpile, transpiledDir } from '../lib/transpile.js';
import { generate } from '../report/generate.js';

const { items, rounds, option } = benchArgs();
const executable = chromiumPath();

/** Milliseconds until the whole answer to a GET arrived, on a connection of its own. */
function timedGet(url: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - started));
    }).on('error', reject);
  });
}

/** Resident memory of a process now and at its peak, in MB (Linux). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-view-bench-'));
const transpiled = `view-bench-${process.pid}`;
try {
  const db = option('db') ?? path.join(dir, 'bench.db');
  if (!existsSync(db)) {
    const started = performance.now();
    const made = generate(db, items * 2);
    process.stderr.write(`generated ${made.items} items, ${made.turns} turns in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  }
  const counted = new Database(db, { readonly: true });
  const size = counted.prepare("SELECT (SELECT count(*) FROM items WHERE run_id = 1) AS items, (SELECT count(*) FROM turns WHERE run_id = 1) AS turns").get() as { items: number; turns: number };
  counted.close();
  // A folder of this process's own: node_modules (and its cache) may be shared by several checkouts.
  const [serve] = transpile(transpiled, ['bench/view/serve.ts', 'src/view/report-worker.ts']);
  const loadBefore = load();
  const server = spawn(process.execPath, [serve!, db], { stdio: ['ignore', 'pipe', 'inherit'] });
  // Never left serving when the benchmark fails.
  process.once('exit', () => server.kill('SIGTERM'));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: server.stdout }).once('line', resolve);
    server.once('exit', (code) => reject(new Error(`the viewer exited (${code}) before serving`)));
  });
  const idle = memoryOf(server.pid!);
  const key = encodeURIComponent('prod/question/q42/0');
  const context = await launchBrowser(executable, dir);
  const pages: Record<string, string> = {
    run: '/runs/1',
    item: `/runs/1/items/${key}`,
    slowest: '/runs/1?sort=latency&order=desc',
    'failed, by latency, page 3': '/runs/1?check=failed&sort=latency&order=desc&page=3',
    'text search': '/runs/1?q=jitter%20undici%20fetch',
  };
  const paint: Record<string, number[]> = Object.fromEntries(Object.keys(pages).map((k) => [k, []]));
  const served: Record<string, number[]> = Object.fromEntries(Object.keys(pages).map((k) => [k, []]));
  // The run's figures read every turn, once per run: counted first, in a worker; meanwhile an item page is
  // asked for once a second, each answer timed (the server's thread stays free while they are counted).
  let counting = true;
  const figuresCounted = timedGet(`${url}/runs/1/figures`).finally(() => (counting = false));
  const whileCounting: number[] = [];
  while (counting) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (counting) whileCounting.push(await timedGet(`${url}/runs/1/items/${key}?counting=${whileCounting.length}`));
  }
  const figuresFirst = await figuresCounted;
  const figuresKept = await timedGet(`${url}/runs/1/figures?again`);
  try {
    for (let i = 0; i < rounds; i++) {
      for (const [name, route] of Object.entries(pages)) {
        // A new query string each round: no page is served from the browser's cache of an earlier round.
        const address = `${url}${route}${route.includes('?') ? '&' : '?'}round=${i}`;
        served[name]!.push(await timedGet(address));
        process.stderr.write(`round ${i + 1}, ${name}: ${served[name]!.at(-1)!.toFixed(0)} ms\n`);
        const page = await context.newPage();
        await page.goto(address);
        // The paint entry can come after the load event on a busy machine: waited for (NaN after 10 s).
        paint[name]!.push(
          Number(
            await page.evaluate(`new Promise((resolve) => {
              new PerformanceObserver((list) => { const e = list.getEntriesByName('first-contentful-paint')[0]; if (e) resolve(e.startTime); }).observe({ type: 'paint', buffered: true });
              setTimeout(() => resolve(NaN), 10000);
            })`),
          ),
        );
        await page.close();
      }
    }
  } finally {
    await context.close();
  }
  const after = memoryOf(server.pid!);
  server.kill('SIGTERM');
  const cell = (values: number[]) => (values.length === 0 ? '' : `${spread(values, 'ms')}; first ${values[0]!.toFixed(0)} ms`);
  process.stdout.write(
    `View benchmark: run 1 of ${size.items.toLocaleString('en-US')} items (${size.turns.toLocaleString('en-US')} turns), ${rounds} rounds; load ${loadBefore} before, ${load()} after\n\n` +
      `| page | first contentful paint | server time (whole page) |\n|---|---|---|\n` +
      Object.keys(pages).map((name) => `| ${name} (\`${pages[name]}\`) | ${cell(paint[name]!)} | ${cell(served[name]!)} |`).join('\n') +
      `\n| figures (\`/runs/1/figures\`, the report's sections) | fetched after the first paint | ${figuresFirst.toFixed(0)} ms counted, then ${figuresKept.toFixed(0)} ms kept |` +
      `\n\nWhile the figures were counted, the item page (one GET a second) answered in ${whileCounting.length > 0 ? spread(whileCounting, 'ms') : 'no time: the count ended within a second'} (${whileCounting.length} answers).` +
      `\n\nThe viewer's process: ${idle.rss.toFixed(0)} MB resident when started, ${after.rss.toFixed(0)} MB after every page, ${after.peak.toFixed(0)} MB at its peak.\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(transpiledDir(transpiled), { recursive: true, force: true });
}
