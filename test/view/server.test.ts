import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ViewServer, startViewer } from '../../src/view/server.js';
import { openStore } from '../../src/store/store.js';
import { writeReport } from '../../src/report/report.js';
import { completed, question, recordRun } from '../report/fixtures.js';
import { twoRuns } from './fixtures.js';

const fileHash = (file: string) => (fs.existsSync(file) ? createHash('sha256').update(fs.readFileSync(file)).digest('hex') : 'absent');

async function get(viewer: ViewServer, route: string, init: RequestInit = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(viewer.url + route, { redirect: 'manual', ...init });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

describe('dsbench view on loopback', () => {
  let fixture: { dir: string; db: string };
  let viewer: ViewServer;
  let before: { db: string; wal: string };

  beforeAll(async () => {
    fixture = twoRuns();
    before = { db: fileHash(fixture.db), wal: fileHash(`${fixture.db}-wal`) };
    viewer = await startViewer({ db: fixture.db, host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await viewer?.close();
    fs.rmSync(fixture.dir, { recursive: true, force: true });
  });

  it('lists the runs with verdict, pass rate and its interval, and links each', async () => {
    const { status, text, headers } = await get(viewer, '/');
    expect(status).toBe(200);
    expect(headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(text).toContain('href="/runs/1"');
    expect(text).toContain('href="/runs/2"');
    expect(text).toMatch(/\d+\.\d%\s*\(\d+\.\d%–\d+\.\d%\)/);
  });

  it('pages, filters and sorts a run\'s items in the database', async () => {
    const all = await get(viewer, '/runs/1');
    expect(all.text).toContain('13 items');
    // Its figures (the report's questions and quality sections) come after the first paint.
    expect(all.text).toContain('data-fragment="/runs/1/figures"');
    const figures = await get(viewer, '/runs/1/figures', { headers: { 'x-dsbench-fragment': '1' } });
    expect(figures.text).toContain('<td>prod</td><td class="num">12/12</td>');
    expect(figures.text).toMatch(/83\.3% \(95% CI \d+\.\d–\d+\.\d%\)/);
    expect(figures.text).not.toContain('<html');
    const failing = await get(viewer, '/runs/1?check=failed');
    const ids = [...failing.text.matchAll(/items\/prod%2Fquestion%2F(q\d+)%2F0/g)].map((m) => m[1]);
    expect(new Set(ids)).toEqual(new Set(['q003', 'q010']));
    const passing = await get(viewer, '/runs/1?check=passed');
    expect(passing.text).toContain('10 items');
    expect(passing.text).not.toMatch(/items\/prod%2Fquestion%2Fq(003|010)%2F0/);
    const text = await get(viewer, '/runs/1?q=q011');
    expect(text.text).toContain('1 item');
    const slowest = (await get(viewer, '/runs/1?sort=latency&order=desc')).text.split('id="items-table"')[1]!;
    expect(slowest.indexOf('q011')).toBeGreaterThan(0);
    expect(slowest.indexOf('q011')).toBeLessThan(slowest.indexOf('q000'));
    const tagged = await get(viewer, '/runs/1?tag=storage');
    expect(tagged.text).toContain('6 items');
  }, 60_000);

  it('shows an item with its checks, answer as inert Markdown and its other runs', async () => {
    const { status, text } = await get(viewer, '/runs/2/items/prod%2Fquestion%2Fq001%2F0');
    expect(status).toBe(200);
    expect(text).toContain('<h1>Found it</h1>');
    expect(text).not.toMatch(/<script>window|<img[^>]*onerror|href="javascript:/i);
    expect(text).toContain('&lt;script&gt;');
    // The refused link's text stays visible.
    expect(text).toContain('click me');
    expect(text).toContain('href="https://sg.example.com/github.com/acme/app/-/blob/a.ts?L1"');
    expect(text).not.toContain('\u001b');
    expect(text).toContain('href="/runs/1/items/prod%2Fquestion%2Fq001%2F0"');
  });

  it('compares two runs with the comparison dsbench compare makes, and serves its page under a policy of hashes', async () => {
    const page = await get(viewer, '/compare?baseline=1&candidate=2');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/pass rate/i);
    const interactive = await get(viewer, '/compare/page?baseline=1&candidate=2');
    expect(interactive.status).toBe(200);
    expect(interactive.headers.get('content-security-policy')).toMatch(/script-src 'sha256-[^']+'/);
    const history = await get(viewer, '/history?suite=smoke');
    expect(history.status).toBe(200);
    expect(history.text).toContain('History of smoke');
  });

  it('answers an unknown page, run or item with a 404 that links back, and refuses writes', async () => {
    for (const route of ['/nope', '/runs/99', '/runs/1/items/missing']) {
      const { status, text } = await get(viewer, route);
      expect(status, route).toBe(404);
      expect(text).toContain('href="/"');
    }
    expect((await get(viewer, '/', { method: 'POST' })).status).toBe(405);
    const bad = await get(viewer, '/compare?baseline=1&candidate=77');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('no run 77');
  });

  it('answers only requests addressed to loopback (DNS rebinding)', async () => {
    const url = new URL(viewer.url);
    const status = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write('GET / HTTP/1.1\r\nHost: evil.example.com\r\nConnection: close\r\n\r\n'));
      let data = '';
      socket.on('data', (d) => (data += d));
      socket.on('end', () => resolve(data.split('\r\n')[0]!));
    });
    expect(status).toContain('403');
  });

  it('leaves the database and its WAL byte-identical after browsing, and no file beside them once stopped', async () => {
    for (const route of ['/', '/runs/1', '/runs/2/items/prod%2Fquestion%2Fq001%2F0', '/compare?baseline=1&candidate=2', '/history']) await get(viewer, route);
    // A read-only connection may add an empty WAL while it reads: no content is no change.
    const emptyAsAbsent = (hash: string) => (hash === createHash('sha256').digest('hex') ? 'absent' : hash);
    expect({ db: fileHash(fixture.db), wal: emptyAsAbsent(fileHash(`${fixture.db}-wal`)) }).toEqual(before);
    await viewer.close();
    expect(fs.readdirSync(fixture.dir).sort()).toEqual(['results.db']);
    expect(fileHash(fixture.db)).toBe(before.db);
    viewer = await startViewer({ db: fixture.db, host: '127.0.0.1', port: 0 });
  });
});

describe('dsbench view and report.md', () => {
  it("shows a run's figures and report with report.md's own rows", async () => {
    const fixture = twoRuns();
    const viewer = await startViewer({ db: fixture.db, host: '127.0.0.1', port: 0 });
    try {
      const figures = (await get(viewer, '/runs/2/figures')).text;
      const report = (await get(viewer, '/runs/2/report')).text;
      await viewer.close();
      await writeReport({ db: fixture.db, run: '2', out: path.join(fixture.dir, 'out'), formats: new Set(['md']) });
      const markdown = fs.readFileSync(path.join(fixture.dir, 'out', 'report.md'), 'utf8');
      // Every row of report.md's tables, cell by cell, is a row of the viewer's report; the questions and quality rows are its figures.
      const rows = markdown.split('\n').filter((l) => /^\| (prod|contains) /.test(l)).map((l) => l.slice(2, -2).split(' | '));
      expect(rows.length).toBeGreaterThanOrEqual(3);
      const cells = (text: string) => [...text.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) => [...m[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]!));
      const shown = cells(report).map((r) => r.join(' | '));
      for (const row of rows) expect(shown).toContain(row.join(' | '));
      const rowsUnder = (heading: string) => markdown.split(/^#+ /m).find((part) => part.startsWith(heading))!.split('\n').filter((l) => l.startsWith('| prod ')).map((l) => l.slice(2, -2));
      const figureRows = [...rowsUnder('Questions'), ...rowsUnder('Quality and consistency')];
      expect(figureRows.length).toBe(2);
      expect(cells(figures).map((r) => r.join(' | '))).toEqual(expect.arrayContaining(figureRows));
    } finally {
      await viewer.close();
      fs.rmSync(fixture.dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('dsbench view off loopback', () => {
  it('needs a token for every request, and takes it once from the address into a cookie', async () => {
    const fixture = twoRuns();
    await expect(startViewer({ db: fixture.db, host: '0.0.0.0', port: 0 })).rejects.toThrow(/needs a token/);
    const token = 'view-token-0123456789';
    const viewer = await startViewer({ db: fixture.db, host: '127.0.0.1', port: 0, token });
    try {
      const none = await get(viewer, '/runs/1');
      expect(none.status).toBe(401);
      expect(none.text).not.toContain('run');
      expect((await get(viewer, '/', { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
      expect((await get(viewer, '/', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      const first = await get(viewer, `/runs/1?token=${token}`);
      expect(first.status).toBe(303);
      expect(first.headers.get('location')).toBe('/runs/1');
      const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
      expect((await get(viewer, '/runs/1', { headers: { cookie } })).status).toBe(200);
    } finally {
      await viewer.close();
      fs.rmSync(fixture.dir, { recursive: true, force: true });
    }
  });
});

describe('dsbench view refuses what it cannot show', () => {
  it('names a missing database, a newer one, and a port in use', async () => {
    const fixture = twoRuns();
    try {
      await expect(startViewer({ db: path.join(fixture.dir, 'none.db'), host: '127.0.0.1', port: 0 })).rejects.toThrow(/no results database at .*none\.db/);
      const newer = path.join(fixture.dir, 'newer.db');
      fs.copyFileSync(fixture.db, newer);
      const raw = new Database(newer);
      raw.pragma('user_version = 999');
      raw.close();
      await expect(startViewer({ db: newer, host: '127.0.0.1', port: 0 })).rejects.toThrow(/newer dsbench/);
      const first = await startViewer({ db: fixture.db, host: '127.0.0.1', port: 0 });
      try {
        const port = Number(new URL(first.url).port);
        await expect(startViewer({ db: fixture.db, host: '127.0.0.1', port })).rejects.toThrow(new RegExp(`port ${port} .* in use.*--port`));
      } finally {
        await first.close();
      }
    } finally {
      fs.rmSync(fixture.dir, { recursive: true, force: true });
    }
  });

  it('marks each page with the data version it was read at, which the event stream starts with', async () => {
    const fixture = twoRuns();
    const writer = openStore(fixture.db);
    const viewer = await startViewer({ db: fixture.db, host: '127.0.0.1', port: 0 });
    const hello = async (): Promise<string> => {
      const res = await fetch(`${viewer.url}/events`);
      const reader = res.body!.getReader();
      let seen = '';
      while (!/event: hello\ndata: .*\n/.test(seen)) seen += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      return /"version":(\d+)/.exec(seen)![1]!;
    };
    try {
      const page = await get(viewer, '/runs/1');
      const shown = /<body[^>]* data-version="(\d+)"/.exec(page.text)?.[1];
      expect(shown).toBeDefined();
      // Whole answers with their length, no chunked transfer.
      expect(page.headers.get('content-length')).toBe(String(Buffer.byteLength(page.text)));
      expect(await hello()).toBe(shown);
      // A commit before the page's stream started (it starts after the first paint): the stream says so at once.
      recordRun(writer, [{ item: question('late-1'), leave: 'pending' }], { status: 'running' });
      expect(await hello()).not.toBe(shown);
    } finally {
      await viewer.close();
      writer.close();
      fs.rmSync(fixture.dir, { recursive: true, force: true });
    }
  });

  it('tells an open page when a run records more, by server-sent events', async () => {
    const fixture = twoRuns();
    const writer = openStore(fixture.db);
    const viewer = await startViewer({ db: fixture.db, host: '127.0.0.1', port: 0 });
    try {
      const runId = recordRun(writer, [{ item: question('live-1'), leave: 'pending' }], { status: 'running' });
      const res = await fetch(`${viewer.url}/events?run=${runId}`);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let seen = '';
      const until = async (pattern: RegExp) => {
        while (!pattern.test(seen)) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`stream ended before ${pattern}: ${seen}`);
          seen += decoder.decode(value);
        }
      };
      await until(/event: hello/);
      expect(seen).toContain('"done":0');
      // Counted once while the run records (its figures, its sort keys), then counted again after its next commit.
      expect((await get(viewer, `/runs/${runId}/figures`)).text).toContain('0/1');
      expect((await get(viewer, `/runs/${runId}?sort=latency`)).text).not.toMatch(/<td class="num">1\.\d s<\/td>/);
      writer.recorder.itemStarted(runId, 'prod/question/live-1/0', new Date().toISOString());
      writer.recorder.recordTurn(runId, 'prod/question/live-1/0', 0, completed());
      writer.recorder.itemFinished(runId, 'prod/question/live-1/0', 'completed', new Date().toISOString());
      writer.recorder.commit();
      await until(/event: change[\s\S]*"done":1/);
      await reader.cancel();
      expect((await get(viewer, `/runs/${runId}/figures`)).text).toContain('1/1');
      expect((await get(viewer, `/runs/${runId}?sort=latency`)).text).toMatch(/<td class="num">1\.\d s<\/td>/);
    } finally {
      await viewer.close();
      writer.close();
      fs.rmSync(fixture.dir, { recursive: true, force: true });
    }
    // Two counts of the run's figures, each in a worker that loads the report's code: seconds on a loaded machine.
  }, 60_000);
});
