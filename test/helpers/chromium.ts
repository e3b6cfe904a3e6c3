// The HTML pages opened in a real browser: Debian's chromium, driven by playwright-core. CI installs chromium
// (.ci/run); a test skips, saying so, only where no chromium binary exists at all.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BrowserContext, type Page, chromium } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter((p): p is string => !!p);

/** The chromium binary, or undefined (with a warning naming `test`) where there is none. */
export function findChromium(test: string): string | undefined {
  const executable = CANDIDATES.find((p) => fs.existsSync(p));
  if (!executable) console.warn(`${test}: SKIPPED, no chromium found (looked at ${CANDIDATES.join(', ')}); install it with apt-get install chromium`);
  return executable;
}

/** A headless browser with a profile of its own. */
export function launchChromium(executable: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-chromium-')), {
    executablePath: executable,
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Opens a page offline (every request not to file:// is listed) once its viewer has drawn it, collecting console errors. */
export async function openPage(context: BrowserContext, file: string): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => {
    if (!r.url().startsWith('file:')) requests.push(r.url());
  });
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 });
  return { page, errors, requests };
}
