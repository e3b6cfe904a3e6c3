import fs from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../bench/report/generate.js';
import { ReportCounter } from '../../src/view/report-counter.js';
import { type ViewServer, startViewer } from '../../src/view/server.js';
import { tempDir } from '../report/fixtures.js';

// A run's report is counted in a worker thread: the viewer answers other pages meanwhile.

/** The body of a GET, on a connection of its own; `sent` is called once the request is written. */
function fetchText(url: string, sent: () => void = () => {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.on('finish', sent);
    req.end();
  });
}

describe('counting a run\'s report off the server\'s thread', () => {
  let dir: string;
  let db: string;
  let viewer: ViewServer;

  beforeAll(async () => {
    dir = tempDir('dsbench-view-count-');
    db = path.join(dir, 'large.db');
    // 5,000 items of two turns: a count of seconds on a loaded machine, an item page of milliseconds.
    generate(db, 10_000);
    viewer = await startViewer({ db, host: '127.0.0.1', port: 0 });
  }, 60_000);
  afterAll(async () => {
    await viewer?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers an item page while the run\'s figures are being counted', async () => {
    const order: string[] = [];
    let figuresSent!: () => void;
    const figuresWritten = new Promise<void>((resolve) => (figuresSent = resolve));
    const figures = fetchText(`${viewer.url}/runs/1/figures`, figuresSent).then((text) => (order.push('figures'), text));
    // Asked once the figures' request is on its way: a server counting them on its own thread answers it after.
    await figuresWritten;
    const item = await fetchText(`${viewer.url}/runs/1/items/${encodeURIComponent('prod/question/q42/0')}`).then((text) => (order.push('item'), text));
    expect(item).toContain('q42');
    expect(await figures).toContain('Quality and consistency');
    expect(order).toEqual(['item', 'figures']);
    // Kept while the run is unchanged: the second answer has the same figures.
    expect(await fetchText(`${viewer.url}/runs/1/figures`)).toContain('Quality and consistency');
  }, 120_000);

  it('names the run and the database when a count fails, and stops a count under way when closed', async () => {
    const counter = new ReportCounter(db);
    await expect(counter.count(99)).rejects.toThrow(`counting the report of run 99 in ${db} failed: run 99 is no longer in ${db}`);
    const counting = counter.count(1);
    // The worker is started once the count before it has settled.
    await new Promise((resolve) => setImmediate(resolve));
    await counter.close();
    await expect(counting).rejects.toThrow(/run 1 .* stopped \(exit code \d+\) before it finished/);
    await expect(counter.count(1)).rejects.toThrow('the viewer is stopping');
  }, 60_000);
});
