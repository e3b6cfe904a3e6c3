// `dsbench view` used as a person uses it, in Debian's chromium (test/helpers/chromium.ts): a live run
// watched until its last item appears, a failing item found with the filters and opened, two runs compared,
// the keyboard alone, axe-core's audit of every page, and hostile answers that must not run.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ViewServer, startViewer } from '../../src/view/server.js';
import { FAST, cleanup, corpusDir, emulator, writeSuite } from '../runner/fixtures/harness.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { findChromium, launchChromium } from '../helpers/chromium.js';
import { tempDir } from '../report/fixtures.js';
import { twoRuns } from './fixtures.js';
import { openStore } from '../../src/store/store.js';
import { findRun } from '../../src/store/queries.js';

const executable = findChromium('view-browser.test');
const SHOTS = process.env.DSBENCH_SCREENSHOT_DIR ?? tempDir('dsbench-view-shots-');
const AXE = fs.readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('axe-core')), 'axe.min.js'), 'utf8');
const TOKEN = 'sgp_view_live_token_0123456789';

async function open(context: BrowserContext, url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  return { page, errors };
}

/** axe-core's serious and critical findings on the page as it is. */
async function audit(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE }).catch(async () => {
    // The viewer's policy refuses inline scripts: evaluate axe in the page instead.
    await page.evaluate(AXE);
  });
  const result = (await page.evaluate('window.axe.run()')) as {
    violations: Array<{ id: string; impact: string; nodes: unknown[] }>;
  };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes.length})`);
}

describe.skipIf(!executable)('dsbench view in chromium', () => {
  let context: BrowserContext;
  let fixture: { dir: string; db: string };
  let viewer: ViewServer;

  beforeAll(async () => {
    context = await launchChromium(executable!);
    fixture = twoRuns();
    viewer = await startViewer({ db: fixture.db, host: '127.0.0.1', port: 0 });
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await viewer?.close();
    await cleanup();
    fs.rmSync(fixture.dir, { recursive: true, force: true });
  });

  it('finds a failing item with the filters and opens it; hostile answers stay text', async () => {
    const { page, errors } = await open(context, `${viewer.url}/runs/2`);
    await page.selectOption('select[name=check]', 'failed');
    await page.click('form.filters button[type=submit]');
    await page.waitForURL(/check=failed/);
    const links = page.locator('#items-table tbody a');
    expect(await links.count()).toBe(2);
    await page.screenshot({ path: path.join(SHOTS, 'view-run-failing.png'), fullPage: true });
    await links.first().click();
    await page.waitForURL(/items\//);
    expect(await page.locator('h1').innerText()).toContain('q003');
    // The hostile answer of q001: its markup shown, none of it run.
    await page.goto(`${viewer.url}/runs/2/items/prod%2Fquestion%2Fq001%2F0`);
    await page.screenshot({ path: path.join(SHOTS, 'view-item-hostile.png'), fullPage: true });
    for (const link of await page.locator('.answer a').all()) await link.click({ modifiers: ['Shift'] }).catch(() => {});
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('.answer').innerText()).toContain('click me');
    expect(await page.locator('.answer').innerText()).toContain('<script>');
    expect(errors.filter((e) => !/Content Security Policy/.test(e))).toEqual([]);
  }, 60_000);

  it('paints an item page from its own HTML: no render-blocking request, the script kept between pages', async () => {
    const item = `${viewer.url}/runs/2/items/prod%2Fquestion%2Fq003%2F0`;
    const resources = `performance.getEntriesByType('resource').map((r) => ({ name: new URL(r.name).pathname, blocking: r.renderBlockingStatus, bytes: r.transferSize }))`;
    const { page, errors } = await open(context, item);
    type Fetched = Array<{ name: string; blocking: string; bytes: number }>;
    expect(((await page.evaluate(resources)) as Fetched).filter((r) => r.blocking === 'blocking')).toEqual([]);
    // Styled by the inline sheet the page's policy allows by its hash.
    expect(await page.evaluate("getComputedStyle(document.querySelector('header')).display")).toBe('flex');
    await page.goto(`${viewer.url}/runs/2/items/prod%2Fquestion%2Fq004%2F0`);
    await page.waitForLoadState('load');
    const script = ((await page.evaluate(resources)) as Fetched).find((r) => r.name === '/assets/view.js');
    expect(script?.bytes).toBe(0);
    expect(errors).toEqual([]);
  }, 60_000);

  it('opens its event stream after its first paint, and refreshes a page older than the data', async () => {
    const page = await context.newPage();
    // When the page's script opens its stream, on the page's own clock (run before the page, as the policy allows).
    await page.addInitScript(`(() => {
      const Original = window.EventSource;
      window.EventSource = function (url) { window.__streamAt = performance.now(); return new Original(url); };
    })()`);
    // The page as if a commit had come between its making and its stream's start.
    await page.route(/\/runs\/2\/items\//, async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, body: (await res.text()).replace(/ data-version="\d+"/, ' data-version="-1"') });
    });
    await page.goto(`${viewer.url}/runs/2/items/prod%2Fquestion%2Fq004%2F0`);
    // Polled from here: a string waited for in the page would be an eval, which the page's policy refuses.
    await expect.poll(() => page.evaluate('window.__streamAt !== undefined'), { timeout: 10_000 }).toBe(true);
    const [streamAt, paintedAt] = (await page.evaluate("[window.__streamAt, performance.getEntriesByName('first-contentful-paint')[0].startTime]")) as [number, number];
    expect(streamAt).toBeGreaterThanOrEqual(paintedAt);
    await expect.poll(() => page.evaluate("document.body.hasAttribute('data-refreshed')"), { timeout: 10_000 }).toBe(true);
    expect(await page.locator('h1').innerText()).toContain('q004');
    await page.close();
  }, 60_000);

  it('compares two runs, and works from the keyboard alone', async () => {
    const { page, errors } = await open(context, `${viewer.url}/compare`);
    await page.selectOption('select[name=baseline]', '1');
    await page.selectOption('select[name=candidate]', '2');
    await page.focus('select[name=candidate]');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement && document.activeElement.tagName')).toBe('BUTTON');
    await page.keyboard.press('Enter');
    await page.waitForURL(/candidate=2/);
    expect(await page.locator('main').innerText()).toMatch(/pass rate/i);
    await page.screenshot({ path: path.join(SHOTS, 'view-compare.png'), fullPage: false });
    // From the runs page to a run with Tab and Enter only.
    await page.goto(`${viewer.url}/`);
    let reached = '';
    for (let i = 0; i < 40 && !reached.includes('/runs/'); i++) {
      await page.keyboard.press('Tab');
      reached = String(await page.evaluate("(document.activeElement && document.activeElement.getAttribute('href')) || ''"));
    }
    expect(reached).toMatch(/^\/runs\/\d+$/);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/runs\/\d+$/);
    expect(errors).toEqual([]);
  }, 60_000);

  it('has no serious or critical accessibility finding on any page', async () => {
    const found: Record<string, string[]> = {};
    for (const route of ['/', '/runs/2', '/runs/2/items/prod%2Fquestion%2Fq001%2F0', '/compare?baseline=1&candidate=2', '/history?suite=smoke', '/nope']) {
      const { page } = await open(context, viewer.url + route);
      found[route] = await audit(page);
      await page.close();
    }
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
  }, 90_000);

  it('shows a live run\'s items as they finish, within a second of their commit', async () => {
    const e = await emulator({ ...FAST, timeScale: 0.01, corpus: { dir: corpusDir() }, users: [{ id: 1, username: 'admin', tokens: [{ token: TOKEN, scopes: ['externalapi:read', 'externalapi:write'] }] }] });
    const suite = writeSuite(`name: smoke
defaults: { api: legacy, concurrency: 1, poll: { strategy: fixed, interval: 1s } }
questions:
${Array.from({ length: 5 }, (_, i) => `  - id: live-${i}\n    question: Where is retry number ${i} implemented?\n`).join('')}`);
    const run = dsbenchHere(['run', suite, '--endpoint', e.url, '--db', fixture.db, '--quiet'], { SRC_ACCESS_TOKEN: TOKEN });
    // The run's row appears first; its page then follows the run.
    const deadline = Date.now() + 30_000;
    while ((await fetch(`${viewer.url}/runs/3`)).status !== 200) {
      if (Date.now() > deadline) throw new Error('run 3 never appeared');
      await new Promise((r) => setTimeout(r, 100));
    }
    const { page, errors } = await open(context, `${viewer.url}/runs/3`);
    const seen: string[] = [];
    while (Date.now() < deadline + 30_000) {
      const text = await page.locator('#live').innerText();
      if (seen.at(-1) !== text) seen.push(text);
      if (/run (completed|aborted|failed)/.test(text)) break;
      await page.waitForTimeout(50);
    }
    // Progress was seen live, item by item, before the end.
    expect(seen.some((t) => /live: [1-4] of 5 items done/.test(t)), seen.join(' | ')).toBe(true);
    expect((await run).code).toBe(0);
    // The last item in the table without a reload: the page's content was fetched again after the commit.
    await page.waitForFunction("document.querySelectorAll('#items-table tbody a').length === 5", undefined, { timeout: 5_000 });
    const refreshedAt = Number(await page.evaluate("document.body.getAttribute('data-refreshed')"));
    const reader = openStore(fixture.db, { readOnly: true });
    const endedAt = Date.parse(findRun(reader.db, 3)!.endedAt!);
    reader.close();
    expect(await page.locator('#run-status').innerText()).toBe('completed');
    await page.screenshot({ path: path.join(SHOTS, 'view-live-done.png'), fullPage: false });
    console.info(`view-browser: the page showed the run's end ${refreshedAt - endedAt} ms after its commit; screenshots in ${SHOTS}`);
    expect(refreshedAt - endedAt).toBeLessThan(1_000);
    expect(errors).toEqual([]);
  }, 120_000);
});
