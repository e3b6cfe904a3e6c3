// The pages' viewer is TypeScript bundled by esbuild: from the sources at its first use, and by the build into
// the CLI in its place (scripts/build.ts). The built CLI must ship that same script, without esbuild, and
// the pages it writes must draw in a browser.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientScript } from '../../../src/report/html/client-script.js';
import { openStore } from '../../../src/store/store.js';
import { findChromium, launchChromium, openPage } from '../../helpers/chromium.js';
import { prepareCli } from '../../helpers/cli.js';
import { completed, failed, question, recordRun, tempDir } from '../fixtures.js';

const cli = prepareCli();
const executable = findChromium('client-script.test');

describe('the viewer in the built CLI', () => {
  let dir: string;
  let page: string;

  beforeAll(async () => {
    dir = tempDir('dsbench-viewer-');
    const db = path.join(dir, 'results.db');
    const store = openStore(db);
    recordRun(store, [
      { item: question('q1'), turns: [completed({ answer: 'The retry policy lives in retry.ts.' })] },
      { item: question('q2'), turns: [failed()] },
    ]);
    store.close();
    const out = path.join(dir, 'report');
    const report = await cli.run(['report', 'latest', '--db', db, '--format', 'html', '--out', out]);
    expect(report.stderr).toBe('');
    expect(report.code).toBe(0);
    page = path.join(out, 'report.html');
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('carries neither esbuild nor the browser sources: the bundled script stands in their place', () => {
    const bundled = [...cli.inputs.values()].flat();
    expect(bundled.filter((i) => i.endsWith(path.join('src', 'report', 'html', 'client-script.ts')))).toHaveLength(1);
    expect(bundled.filter((i) => i.includes(`${path.sep}node_modules${path.sep}esbuild${path.sep}`) || i.includes(`${path.sep}html${path.sep}browser${path.sep}`))).toEqual([]);
  });

  it('writes pages whose script is the viewer bundled from the sources', () => {
    expect(fs.readFileSync(page, 'utf8')).toContain(`<script>${clientScript()}</script>`);
  });

  it.skipIf(!executable)('writes pages that draw in a browser', async () => {
    const context = await launchChromium(executable!);
    try {
      const { page: opened, errors, requests } = await openPage(context, page);
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      expect(await opened.innerText('#questions .pager')).toContain('rows 1-2 of 2');
      const charts = Number(await opened.getAttribute('body', 'data-charts'));
      expect(charts).toBeGreaterThan(0);
      expect(await opened.locator('canvas').count()).toBe(charts);
    } finally {
      await context.close();
    }
  });
});
