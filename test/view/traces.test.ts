import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { type ViewServer, startViewer } from '../../src/view/server.js';
import { completed, question, recordRun, tempDir } from '../report/fixtures.js';

// A run recorded with `run --trace` keeps each item's trace links: the item page shows them as links, under the
// same rule as every address a server sent (http(s) only, opened apart, without the referrer).

describe('trace links in the viewer', () => {
  let dir: string;
  let viewer: ViewServer;

  beforeAll(async () => {
    dir = tempDir('dsbench-view-traces-');
    const db = path.join(dir, 'results.db');
    const store = openStore(db);
    recordRun(store, [
      {
        item: question('q1'),
        turns: [
          completed({ traces: [{ operation: 'create', id: 'abc123', url: 'https://sg.example.com/-/debug/jaeger/trace/abc123' }, { operation: 'poll', id: 'evil9', url: 'javascript:window.__pwned=1' }] }),
          completed({ traces: [{ operation: 'follow-up', id: 'def456', note: 'X-Trace-URL was not a URL' }] }),
        ],
      },
      { item: question('q2'), turns: [completed()] },
    ]);
    store.close();
    viewer = await startViewer({ db, host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await viewer?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('links an item\'s traces on its page and in the run\'s list; other addresses stay text', async () => {
    const text = await (await fetch(`${viewer.url}/runs/1/items/${encodeURIComponent('prod/question/q1/0')}`)).text();
    expect(text).toContain('Trace: <a href="https://sg.example.com/-/debug/jaeger/trace/abc123" rel="noopener noreferrer nofollow" target="_blank">trace abc123</a>');
    expect(text).toContain('trace evil9');
    expect(text).not.toMatch(/href="javascript:/i);
    expect(text).toContain('trace def456 <span class="muted">follow-up of turn 1; X-Trace-URL was not a URL</span>');
    // The run's item list links each traced item's trace beside it.
    const list = await (await fetch(`${viewer.url}/runs/1`)).text();
    expect(list).toContain('<span class="trace"><a href="https://sg.example.com/-/debug/jaeger/trace/abc123" rel="noopener noreferrer nofollow" target="_blank">trace</a></span>');
    expect(list.match(/class="trace"/g)).toHaveLength(1);
    const untraced = await (await fetch(`${viewer.url}/runs/1/items/${encodeURIComponent('prod/question/q2/0')}`)).text();
    expect(untraced).not.toContain('Trace:');
  });
});
