// First contentful paint of viewer pages against the floor of this machine, in paired, interleaved tabs: a
// two-line page from a bare node server (bench/view/bare.ts), then each page in turn, a new tab each, the
// order rotated every round so no page always follows another. Per page: first contentful paint, when the
// response ended, and the time between (the browser's own work on the page), medians with min-max.
// Needs chromium (/usr/bin/chromium or CHROMIUM_PATH) and a database (generated when missing).
// Run: node --import tsx bench/view/paint.ts [--db FILE] [--rounds 9] [--set pages|item|'item only'|floor] [--against DIR]
//   [--folder DIR --files a,b]
//   --against DIR: each viewer page also from the viewer of another checkout (say /work/main), interleaved;
//   --set pages (default): the floor, the item page, the run page and its sorted and filtered pages;
//   --set item: the floor, the item page's HTML from the bare server (alone, then with the viewer's headers,
//   then without a Content-Length, then without its script), and the item page from the viewer.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { benchArgs, chromiumPath, launchBrowser, load, median, spread } from '../lib/browser-bench.js';
import { transpile, transpiledDir } from '../lib/transpile.js';
import { generate } from '../report/generate.js';

const { items, option } = benchArgs();
const rounds = Number(option('rounds') ?? 9);
const set = option('set') ?? 'pages';
const executable = chromiumPath();
const ITEM = `/runs/1/items/${encodeURIComponent('prod/question/q42/0')}`;

/** A child process serving until SIGTERM; its address is its first line. */
async function serve(script: string, args: string[]): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  process.once('exit', () => child.kill('SIGTERM'));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before serving`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

interface Tab {
  fcp: number;
  responseEnd: number;
}

/** A page's address on each viewer: this checkout's, and the one of `--against DIR` when given. */
function onViewers(name: string, route: string, viewer: string, against: string | undefined): Record<string, string> {
  return { [name]: `${viewer}${route}`, ...(against ? { [`${name}, against`]: `${against}${route}` } : {}) };
}

const SETS: Record<string, (viewer: string, bare: string, against: string | undefined) => Record<string, string>> = {
  floor: (_viewer, bare) => ({ floor: `${bare}/floor` }),
  'item only': (viewer, bare, against) => ({ floor: `${bare}/floor`, ...onViewers('item', ITEM, viewer, against) }),
  pages: (viewer, bare, against) => ({
    floor: `${bare}/floor`,
    ...onViewers('item', ITEM, viewer, against),
    ...onViewers('run', '/runs/1', viewer, against),
    ...onViewers('slowest', '/runs/1?sort=latency&order=desc', viewer, against),
    ...onViewers('failed, by latency, page 3', '/runs/1?check=failed&sort=latency&order=desc&page=3', viewer, against),
  }),
  item: (viewer, bare, against) => ({
    floor: `${bare}/floor`,
    'item HTML, bare': `${bare}/copy`,
    'item HTML, bare, viewer headers': `${bare}/copy?headers=1`,
    'item HTML, bare, chunked': `${bare}/copy?chunked=1`,
    'item HTML, bare, no script': `${bare}/copy?script=0`,
    'item HTML, bare, no style': `${bare}/copy?css=0`,
    ...onViewers('item', ITEM, viewer, against),
  }),
};

/** This checkout's viewer, or another checkout's (`--against DIR`, transpiled by that checkout's own code). */
async function viewerOf(root: string | undefined, name: string, db: string): Promise<{ url: string; stop(): void; clean(): void }> {
  const lib = root ? ((await import(path.join(root, 'bench/lib/transpile.ts'))) as typeof import('../lib/transpile.js')) : { transpile, transpiledDir };
  const [serveJs] = lib.transpile(name, ['bench/view/serve.ts', 'src/view/report-worker.ts']);
  const served = await serve(serveJs!, [db]);
  return { ...served, clean: () => rmSync(lib.transpiledDir(name), { recursive: true, force: true }) };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-view-paint-'));
const transpiled = `view-paint-${process.pid}`;
try {
  const db = option('db') ?? path.join(dir, 'bench.db');
  if (!existsSync(db)) generate(db, items * 2);
  const [bareJs] = transpile(transpiled, ['bench/view/bare.ts']);
  const loadBefore = load();
  const viewer = await viewerOf(undefined, `${transpiled}-viewer`, db);
  const againstDir = option('against');
  const against = againstDir ? await viewerOf(path.resolve(againstDir), `${transpiled}-against`, db) : undefined;
  const folder = option('folder');
  const bare = await serve(bareJs!, [viewer.url, ITEM, ...(folder ? [path.resolve(folder)] : [])]);
  // --folder DIR adds DIR/NAME.html for each NAME given in --files a,b,c (served as they are, by the bare server).
  const files = Object.fromEntries((option('files') ?? '').split(',').filter(Boolean).map((name) => [`file ${name}`, `${bare.url}/file/${name}`]));
  const pages = { ...(SETS[set] ?? SETS['pages']!)(viewer.url, bare.url, against?.url), ...files };
  const names = Object.keys(pages);
  const tabs: Record<string, Tab[]> = Object.fromEntries(names.map((n) => [n, []]));
  const context = await launchBrowser(executable, dir);
  try {
    // One unmeasured pass: the first tab of a browser, and each server's first answer, are slower.
    for (const name of names) await openTab(pages[name]!, -1);
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + round) % names.length]!;
        tabs[name]!.push(await openTab(pages[name]!, round));
      }
    }
  } finally {
    await context.close();
    bare.stop();
    viewer.stop();
    viewer.clean();
    against?.stop();
    against?.clean();
  }
  const floor = median(tabs['floor']!.map((t) => t.fcp));
  process.stdout.write(
    `Paint, set ${set}: ${rounds} rounds of ${names.length} tabs interleaved; load ${loadBefore} before, ${load()} after\n\n` +
      `| page | first contentful paint | over the floor | response ended | paint after the response |\n|---|---|---|---|---|\n` +
      names
        .map((name) => {
          const t = tabs[name]!;
          const fcp = t.map((x) => x.fcp);
          return `| ${name} | ${spread(fcp, 'ms')} | ${(median(fcp) - floor).toFixed(0)} ms | ${spread(t.map((x) => x.responseEnd), 'ms')} | ${spread(t.map((x) => x.fcp - x.responseEnd), 'ms')} |`;
        })
        .join('\n') +
      '\n',
  );

  async function openTab(address: string, round: number): Promise<Tab> {
    // A new query string each round: nothing comes from the browser's cache of the page itself.
    const page = await context.newPage();
    await page.goto(`${address}${address.includes('?') ? '&' : '?'}round=${round}`);
    const measured = (await page.evaluate(`new Promise((resolve) => {
      const nav = performance.getEntriesByType('navigation')[0];
      new PerformanceObserver((list) => { const e = list.getEntriesByName('first-contentful-paint')[0]; if (e) resolve({ fcp: e.startTime, responseEnd: nav.responseEnd }); }).observe({ type: 'paint', buffered: true });
      setTimeout(() => resolve({ fcp: NaN, responseEnd: nav.responseEnd }), 10000);
    })`)) as Tab;
    await page.close();
    return measured;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(transpiledDir(transpiled), { recursive: true, force: true });
}
