import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCompare } from '../../src/cli/compare.js';
import { writeHistory } from '../../src/report/history-report.js';
import { writeReport } from '../../src/report/report.js';
import { type ItemScript, completed, failed, info, question, recordNights, recordRun, search, searchRecord, tempDir } from './fixtures.js';
import { openStore } from '../../src/store/store.js';
import { SqliteGradeStore } from '../../src/store/grades.js';
import type { ItemGrading } from '../../src/model/grading.js';
import { findChromium, launchChromium, openPage } from '../helpers/chromium.js';

// The HTML reports opened in a real browser (test/helpers/chromium.ts).
const executable = findChromium('html-browser.test');

// Screenshots to look at by hand: in a folder of their own (DSBENCH_SCREENSHOT_DIR to keep them somewhere), never
// beside the user's database in results/.
const SHOTS = process.env.DSBENCH_SCREENSHOT_DIR ?? tempDir('dsbench-html-shots-');
// Emulated, so `compare --judge` asks a judge of its own (a fresh embedded emulator), as it does for such runs.
const one = [{ name: 'prod', url: 'https://sg.example.com', api: 'legacy' as const, emulated: true }];

/** Grades and checked citations of the first ten questions: q003 fails its judge and cites a missing line. */
function grading(id: string, score: number): ItemGrading {
  const bad = id === 'q003';
  const graded = { turn: 0, spec: 'question' as const, status: 'graded' as const, score: bad ? 0.3 : score, minScore: 0.6, passed: !bad, model: 'judge-1', promptVersion: 'grade-v1', promptHash: 'p', inputsHash: `i-${id}`, cached: false, gradedAt: '2025-03-01T00:00:06.000Z' };
  return {
    grades: [{ ...graded, reasons: bad ? ['does not name retry.ts'] : ['names retry.ts and the backoff'] }],
    citations: [
      {
        turn: 0,
        checkedAt: '2025-03-01T00:00:06.000Z',
        citations: [
          { origin: 'answer', kind: 'file', repository: 'github.com/acme/app', path: 'src/retry.ts', startLine: 3, endLine: 9, link: 'https://sg.example.com/github.com/acme/app/-/blob/src/retry.ts?L3-9', status: 'valid', reason: 'lines 3-9 exist' },
          ...(bad ? [{ origin: 'answer' as const, kind: 'file' as const, repository: 'github.com/acme/app', path: 'src/retry.ts', startLine: 100400, link: 'https://sg.example.com/github.com/acme/app/-/blob/src/retry.ts?L100400', status: 'invalid' as const, reason: 'line 100400 is past the end (42 lines)' }] : []),
        ],
      },
    ],
    expectations: [{ name: 'minScore', passed: !bad, reason: bad ? 'score 0.3 < 0.6' : `score ${score} >= 0.6`, turn: 0 }],
  };
}

function items(answer: (id: string) => string, slow: number): ItemScript[] {
  const scripts: ItemScript[] = [];
  for (let i = 0; i < 120; i++) {
    const id = `q${String(i).padStart(3, '0')}`;
    const tags = [i % 3 === 0 ? 'http' : i % 3 === 1 ? 'storage' : 'cli'];
    const fails = i % 17 === 5;
    scripts.push({
      item: question(id, 'prod', 0, tags),
      turns: [
        fails ? failed() : completed({ serverMs: 2000 + ((i * 7919) % 9000) * slow, credits: 1 + (i % 4), tokens: 5000 + i * 10, answer: answer(id) }),
        // q001 has a follow-up: still one item in the charts that count items.
        ...(i === 1 ? [completed({ serverMs: 3000, credits: 1, tokens: 4000, answer: answer(id) })] : []),
      ],
      expectations: [
        { name: 'state', passed: !fails, reason: fails ? 'state error, expected completed' : 'completed' },
        { name: 'contains', passed: i % 11 !== 3, reason: i % 11 === 3 ? 'missing "backoff"' : 'found "retry"' },
      ],
    });
  }
  scripts.push({ item: search('count', 'prod'), search: searchRecord() });
  return scripts;
}

describe.skipIf(!executable)('HTML reports in headless chromium', () => {
  let dir: string;
  let context: BrowserContext;
  const files: { report?: string; compare?: string; history?: string; detect?: string } = {};

  beforeAll(async () => {
    dir = tempDir('dsbench-html-');
    const db = path.join(dir, 'results.db');
    const store = openStore(db);
    // One answer carries markup and a token: the page must show it as text, redacted, and run none of it.
    const baseline = (id: string) =>
      id === 'q007' ? 'Use </script><img src=x onerror="document.title=\'pwned\'"> with sgp_0123456789abcdef0123' : `The retry policy of ${id} lives in retry.ts and uses exponential backoff.`;
    const grades = new SqliteGradeStore(store.db);
    const first = recordRun(store, items(baseline, 1), { targets: one, info: { startedAt: '2025-03-01T00:00:00.000Z' } });
    const second = recordRun(store, items((id) => `The retry policy of ${id} lives in policy.ts and uses a fixed delay with jitter.`, 1.4), { targets: one, info: { startedAt: '2025-03-02T00:00:00.000Z' } });
    for (let i = 0; i < 10; i++) {
      const id = `q00${i}`;
      grades.recordGrading(first, `prod/question/${id}/0`, grading(id, 0.9));
      grades.recordGrading(second, `prod/question/${id}/0`, grading(id, 0.75));
    }
    // A create given up that landed after all: the page warns of it, as report.md does.
    store.recorder.unownedConversation(second, 'prod', { ref: 'users/~self/conversations/999', text: 'Where is retryPolicy implemented?' }, '2025-03-02T01:00:00.000Z');
    store.recorder.commit();
    store.close();
    files.report = (await writeReport({ db, run: 'latest', out: path.join(dir, 'report'), formats: new Set(['html']) })).files.find((f) => f.endsWith('.html'));
    // As `dsbench compare latest~1 latest --html --judge` runs it: the page is written again with the judge's section.
    await runCompare({ baseline: 'latest~1', candidate: 'latest', db, out: path.join(dir, 'compare'), html: true, judge: true }, { write: () => true });
    files.compare = path.join(dir, 'compare', 'compare.html');
    // The files hold the judge's section too, as stdout does.
    expect(fs.readFileSync(path.join(dir, 'compare', 'compare.md'), 'utf8')).toContain('Pairwise (judge, both orders): 114 paired answers, candidate 0 wins, 0 losses, 114 ties');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'compare', 'compare.json'), 'utf8'))).toMatchObject({ pairwise: { pairs: 114, ties: 114, failedGates: [] } });
    // A night whose token was refused: every item skipped, nothing asked. The history lists it apart from the trend.
    const later = openStore(db);
    const refused = later.recorder.createRun(info({ startedAt: '2025-03-03T00:00:00.000Z', label: 'refused' }), one, items(baseline, 1).map((s) => s.item));
    for (const s of items(baseline, 1)) later.recorder.itemSkipped(refused, s.item.key, 'HTTP 401: the token was refused', '2025-03-03T00:00:01.000Z');
    later.recorder.setRunStatus(refused, 'failed', '2025-03-03T00:00:02.000Z');
    later.recorder.commit();
    later.close();
    files.history = (await writeHistory({ db, limit: 10, out: path.join(dir, 'history'), formats: new Set(['html']) })).files.find((f) => f.endsWith('.html'));
    // Twelve nights whose latency doubled from the ninth: `report --history 12 --detect --html`.
    const nightsDb = path.join(dir, 'nights.db');
    const nights = openStore(nightsDb);
    recordNights(nights, { nights: 12, stepAt: 8, factor: 2, versions: (n) => (n < 7 ? '6.9.2' : '7.0.1') });
    nights.close();
    files.detect = (await writeHistory({ db: nightsDb, limit: 12, out: path.join(dir, 'detect'), formats: new Set(['html']), detect: { questions: false, seed: 1 } })).files.find((f) => f.endsWith('.html'));
    context = await launchChromium(executable!);
    fs.mkdirSync(SHOTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Opens a page offline (any request leaving file:// fails the test) and collects console errors. */
  const open = (file: string) => openPage(context, file);

  /** How many canvases have something drawn on them (any non-transparent pixel). */
  /** A full-page capture from the top: scrolled down, sticky table headers would be drawn over the rows. */
  async function screenshot(page: Page, name: string): Promise<void> {
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(SHOTS, name), fullPage: true });
  }

  async function drawnCharts(page: Page): Promise<number> {
    // A string, evaluated in the page: the project's type-check has no DOM library.
    return page.evaluate(`[...document.querySelectorAll('canvas')].filter((c) => {
      const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) return true;
      return false;
    }).length`);
  }

  it('the run report loads with no console error, draws its charts and pages its table', async () => {
    const { page, errors, requests } = await open(files.report!);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    const html = fs.readFileSync(files.report!, 'utf8');
    expect(html).not.toContain('sgp_0123456789abcdef0123');
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']?https?:/i);
    // 120 items, 121 turns asked (a follow-up): items and turns apart, as every view counts them.
    expect(await page.innerText('main table')).toMatch(/^prod\t120\t\d+\t\d+( \(\+\d+ expected\))?\t121\t/m);
    expect(await page.innerText('h1')).toContain('items failed their checks');
    expect(await page.innerText('p.warn')).toContain("1 conversation asks this run's questions but belongs to no item");
    expect(await page.innerText('p.warn')).toContain('users/~self/conversations/999');
    expect(await page.getAttribute('body', 'data-charts')).toBe('5');
    expect(await drawnCharts(page)).toBe(5);
    // Items, not turns: q001's follow-up does not count it twice.
    const byQuestion = await page.evaluate(`(() => {
      const box = [...document.querySelectorAll('.chart')].find((c) => c.querySelector('h3').textContent === 'Pass/fail by question');
      const data = Chart.getChart(box.querySelector('canvas')).data;
      const at = data.labels.indexOf('q001');
      return { items: data.datasets.flatMap((d) => d.data).reduce((a, b) => a + b, 0), q001: data.datasets.map((d) => d.data[at]) };
    })()`);
    expect(byQuestion).toEqual({ items: 40, q001: [1, 0] });
    expect(await page.textContent('.pager')).toContain('of 121');
    await page.click('text=failures only');
    expect(await page.textContent('.pager')).toMatch(/of (1[0-9]|[2-9])\b/);
    await page.click('#questions tbody tr');
    expect(await page.textContent('#questions .detail')).toContain('contains: missing "backoff"');
    // Grades and citations: a table per target, columns in the questions table, reasons and citations in the detail.
    expect(await page.innerText('#grades')).toMatch(/prod\t10 of 10\t0\.7\d?\t9\t0\t0\t10\t1\t0\t90\.9%/);
    // Quality with intervals over questions: the pass rate's interval brackets it.
    expect(await page.innerText('#quality')).toMatch(/prod\t120\t85\.0% \(\d+\.\d% … \d+\.\d%\)\t1\t/);
    await page.fill('#questions input[type=search]', 'q003');
    await page.waitForFunction(`document.querySelector('#questions .pager').textContent.includes(' of 1 ')`);
    expect(await page.innerText('#questions tbody tr')).toMatch(/\t0\.3\t1 of 2\t/);
    await page.click('#questions tbody tr');
    const detail = await page.innerText('#questions .detail');
    expect(detail).toContain('Judge (question): score 0.3 < 0.6');
    expect(detail).toContain('does not name retry.ts');
    expect(detail).toContain('Citations (1 of 2 valid)');
    expect(detail).toMatch(/invalid https:\/\/sg\.example\.com\S+L100400: line 100400 is past the end/);
    await screenshot(page, 'html-report.png');
    await page.close();
  });

  it('the comparison shows the interval chart and both answers side by side, differences marked', async () => {
    const { page, errors, requests } = await open(files.compare!);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    expect(await drawnCharts(page)).toBe(4);
    // The judge's pairwise section, as compare prints it in text and JSON.
    expect(await page.innerText('#pairwise')).toMatch(/pairs judged\t114 \(0 undecided\)/);
    expect(await page.innerText('#pairwise')).toMatch(/judge score change\t-0\.14 over 10 turns graded in both runs/);
    expect(await page.innerText('#pairwise')).toMatch(/citation validity\t90\.9% → 90\.9%/);
    const baseline = await page.textContent('#side-by-side .baseline .answer');
    const candidate = await page.textContent('#side-by-side .candidate .answer');
    expect(baseline).toContain('retry.ts and uses exponential backoff');
    expect(candidate).toContain('policy.ts and uses a fixed delay with jitter');
    expect(await page.textContent('#side-by-side .baseline del')).toBeTruthy();
    expect(await page.textContent('#side-by-side .candidate ins')).toBeTruthy();
    expect(await page.innerText('main')).toMatch(/latency \(server\)\t.*\tregressed/);
    // The outcome tests, each with its interval and one-sided p-value.
    expect(await page.innerText('#outcomes')).toMatch(/error rate\t\d+\t\d+\t[\d.]+%\t[\d.]+%\t.*\t\S+ \(rise\)/);
    expect(await page.innerText('#outcomes')).toMatch(/pass rate\t.*\(drop\)/);
    await page.fill('#pairs input[type=search]', 'q007');
    await page.waitForFunction(`document.querySelector('#pairs .pager').textContent.includes(' of 1 ')`);
    await page.click('#pairs tbody tr');
    expect(await page.textContent('#side-by-side .baseline .answer')).toContain('</script><img src=x');
    expect(await page.title()).not.toBe('pwned');
    expect(fs.readFileSync(files.compare!, 'utf8')).not.toContain('sgp_0123456789abcdef0123');
    await page.fill('#pairs input[type=search]', 'q003');
    await page.waitForFunction(`document.querySelector('#pairs tbody tr').textContent.includes('q003')`);
    expect(await page.innerText('#pairs tbody tr')).toMatch(/\t0\.3\t0\.3\t/);
    await page.click('#pairs tbody tr');
    expect(await page.textContent('#side-by-side .baseline .grade')).toBe('judge score 0.3; citations 1 of 2 valid');
    await page.fill('#pairs input[type=search]', '');
    await page.waitForFunction(`document.querySelector('#pairs .pager').textContent.includes(' of 122 ')`);
    await page.click('#pairs tbody tr');
    await screenshot(page, 'html-compare.png');
    await page.close();
  });

  it('the history shows the trend over runs', async () => {
    const { page, errors } = await open(files.history!);
    expect(errors).toEqual([]);
    expect(await drawnCharts(page)).toBe(3);
    // Each question night by night: one row per question of the suite, a column per run.
    expect(await page.locator('#question-grid tbody tr').count()).toBeGreaterThan(100);
    expect(await page.innerText('#question-grid thead')).toMatch(/question\tmark\trun 1\trun 2/);
    expect(await page.innerText('#nothing-asked')).toBe('Left out of the trend, 1 run that asked nothing (every item skipped before it was sent, e.g. a refused token): 3 (refused) 2025-03-03T00:00:00.000Z');
    await screenshot(page, 'html-history.png');
    await page.close();
  });

  it('the history marks change points on the charts and lists them', async () => {
    const { page, errors } = await open(files.detect!);
    expect(errors).toEqual([]);
    // Latency p50 and p90 of the suite and of both tags changed at the ninth night (run 9).
    const rows = await page.locator('#change-points tbody tr').allInnerTexts();
    expect(rows).toHaveLength(6);
    expect(rows[0]).toMatch(/^run 9\t2025-03-09T03:00:00.000Z\tsuite \(prod\)\tlatency p\d0\t1\.\d s → 2\.\d s\t\+\d+\.\d% \(\+\d+\.\d% … \+\d+\.\d%\)\t[0-9.]+\t6\.9\.2 → 7\.0\.1 at run 8, 1 night before$/);
    // One chart per changed series, each with its mark; the trend chart marks the suite's two. Every one of
    // them marks the night the instance's version changed too (run 8), so a change point is seen beside it.
    const marks = await page.evaluate(`[...document.querySelectorAll('canvas[data-change-marks]')].map((c) => Number(c.getAttribute('data-change-marks')))`);
    expect(marks).toEqual([1, 1, 1, 1, 1, 1, 2]);
    const versions = await page.evaluate(`[...document.querySelectorAll('canvas[data-version-marks]')].map((c) => Number(c.getAttribute('data-version-marks')))`);
    expect(versions).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(await page.locator('.chart:has(canvas[data-version-marks]) p.note').first().innerText()).toBe("Dashed red: a change point, the first night of the new level. Dotted purple: the instance's version changed.");
    const purple = await page.evaluate(`(() => {
      const c = document.querySelector('canvas[data-version-marks]');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] > 100 && d[i] < 140 && d[i + 1] < 80 && d[i + 2] > 200) n++;
      return n;
    })()`);
    expect(purple).toBeGreaterThan(30);
    expect(await drawnCharts(page)).toBe(9);
    // The mark is drawn: red pixels on the suite's latency chart at the ninth night's x.
    const red = await page.evaluate(`(() => {
      const c = document.querySelector('canvas[data-change-marks]');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i + 1] < 60 && d[i + 2] < 60) n++;
      return n;
    })()`);
    expect(red).toBeGreaterThan(50);
    await screenshot(page, 'html-history-detect.png');
    await page.close();
  });
});
