// HTML report benchmark: a run of N items (default 100,000 items of two turns each, from the report
// benchmark's generator), written as report.html, then opened in headless chromium several times: the time
// until the page has drawn its charts and first table page, a filter over every row, the page's JS heap,
// and the file's size. Needs chromium (/usr/bin/chromium or CHROMIUM_PATH). Not in `npm run bench`: the
// database alone takes minutes to generate at 100,000 items.
// Run: node --import tsx bench/html/index.ts [items] [--rounds 5]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeReport } from '../../src/report/report.js';
import { benchArgs, chromiumPath, launchBrowser, load, spread } from '../lib/browser-bench.js';
import { generate } from '../report/generate.js';

const { items, rounds } = benchArgs();
const executable = chromiumPath();

const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-html-bench-'));
try {
  const db = path.join(dir, 'bench.db');
  const loadBefore = load();
  let started = performance.now();
  const generated = generate(db, items * 2);
  process.stderr.write(`generated ${generated.items} items, ${generated.turns} turns in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  const writeMs: number[] = [];
  // CPU time of the write: less bent by other work on the machine than its wall time.
  const writeCpuMs: number[] = [];
  let file = '';
  for (let i = 0; i < Math.min(rounds, 3); i++) {
    started = performance.now();
    const cpu = process.cpuUsage();
    const result = await writeReport({ db, run: 'latest', out: path.join(dir, `report-${i}`), formats: new Set(['html']) });
    const used = process.cpuUsage(cpu);
    writeCpuMs.push((used.user + used.system) / 1000);
    writeMs.push(performance.now() - started);
    file = result.files.find((f) => f.endsWith('.html'))!;
  }
  const mb = statSync(file).size / 1e6;
  const context = await launchBrowser(executable, dir, ['--enable-precise-memory-info']);
  const readyMs: number[] = [];
  // The page's main-thread busy time until ready (Chrome's TaskDuration): its CPU, less bent by load than wall time.
  const taskMs: number[] = [];
  const filterMs: number[] = [];
  const heapMb: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Performance.enable');
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(pathToFileURL(file).href, { timeout: 120_000 });
      await page.waitForSelector('body[data-ready="true"]', { timeout: 120_000 });
      if (errors.length > 0) throw new Error(`the page failed: ${errors.join('; ')}`);
      // Milliseconds from the start of navigation until the viewer had drawn everything (its own mark).
      readyMs.push(await page.evaluate(`performance.getEntriesByName('dsbench-ready')[0].startTime`));
      heapMb.push((await page.evaluate<number>('performance.memory.usedJSHeapSize')) / 1e6);
      const { metrics } = await cdp.send('Performance.getMetrics');
      taskMs.push((metrics.find((m) => m.name === 'TaskDuration')?.value ?? NaN) * 1000);
      // A filter over every question row: from the keystroke's event to the table redrawn (the 150 ms debounce included).
      filterMs.push(
        await page.evaluate(`new Promise((resolve) => {
          const box = document.querySelector('#questions');
          const input = box.querySelector('input[type=search]');
          const pager = box.querySelector('.pager');
          const before = pager.textContent;
          const t0 = performance.now();
          new MutationObserver(() => { if (pager.textContent !== before) resolve(performance.now() - t0); }).observe(pager, { childList: true, characterData: true, subtree: true });
          input.value = 'q10/';
          input.dispatchEvent(new Event('input'));
        })`),
      );
      await page.close();
    }
  } finally {
    await context.close();
  }
  const lines = [
    `HTML report of ${generated.items.toLocaleString('en-US')} items (${generated.turns.toLocaleString('en-US')} turns, ${generated.searches.toLocaleString('en-US')} searches): ` +
      `${mb.toFixed(1)} MB; written in ${spread(writeMs.map((ms) => ms / 1000), 's', 1)} (CPU ${spread(writeCpuMs.map((ms) => ms / 1000), 's', 1)}) over ${writeMs.length} writes.`,
    `Opened ${rounds} times in headless chromium (${path.basename(executable)}): ready (charts drawn, first page of every table) ${spread(readyMs, 'ms')}, main thread busy ${spread(taskMs, 'ms')}; ` +
      `filter over every question row ${spread(filterMs, 'ms')} (150 ms of it the typing debounce); JS heap after load ${spread(heapMb, 'MB')}.`,
    `Medians (min-max). Load average (1, 5, 15 min) ${loadBefore} before, ${load()} after; a machine shared with other work.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
