// A legacy reply whose `stats` leaves a figure out (or sends it as null) did not measure it: the figure is
// recorded as not measured, never as 0, so it stays out of every sum and a limit on it is "not measured".
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeReport } from '../../src/report/report.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { cleanup, runSuite, storedItem, storedTurns, suite, target, tempDir } from '../runner/fixtures/harness.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

const STATS: Record<number, string> = {
  1: '{"time_millis":2000,"tool_calls":1,"total_tokens":120,"credits":2}',
  2: '{"time_millis":3000,"tool_calls":2,"total_tokens":90}',
  3: '{"time_millis":4000,"credits":null,"total_tokens":null}',
};
const ASKED: Record<number, string> = { 1: 'Where is it?', 2: 'Where is the uncounted one?', 3: 'Where is the null one?' };

function conversation(id: number, status: string): string {
  return `{"id":${id},"questions":[{"id":${id * 10},"question":"${ASKED[id]}","status":"${status}","answer":"a","stats":${STATS[id]}}]}`;
}

describe('stats with figures left out', () => {
  it('records the missing figures as not measured, out of the sums, and a limit on them as not measured', async () => {
    server = await startServer((req, res, body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const id = body.includes('uncounted') ? 2 : body.includes('null one') ? 3 : 1;
      if (req.method === 'POST') return res.end(conversation(id, 'processing'));
      const asked = Number(/\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
      if (!asked) return res.end('[]');
      res.end(conversation(asked, 'completed'));
    });
    const loaded = await suite(`name: partial-stats
defaults: { api: legacy, concurrency: 1, poll: { strategy: fixed, interval: 100ms, min: 100ms } }
questions:
  - { id: full, question: Where is it?, expect: { maxCredits: 5 } }
  - { id: uncounted, question: Where is the uncounted one?, expect: { maxCredits: 5, maxTotalTokens: 100 } }
  - { id: nulls, question: Where is the null one?, expect: { maxCredits: 5 } }
`);
    const run = await runSuite(loaded, [target({ name: 'main', emulator: server.url })]);
    let dbPath: string;
    try {
      const { db, result } = run;
      dbPath = run.dbPath;
      expect(storedTurns(db, result.runId, 'main/question/full/0')).toMatchObject([{ credits: 2, timeMillis: 2000, totalTokens: 120 }]);
      expect(storedTurns(db, result.runId, 'main/question/uncounted/0')).toMatchObject([{ credits: null, timeMillis: 3000, toolCalls: 2, totalTokens: 90, promptTokens: null }]);
      expect(storedTurns(db, result.runId, 'main/question/nulls/0')).toMatchObject([{ credits: null, timeMillis: 4000, totalTokens: null }]);
      const checks = (key: string) => JSON.stringify(storedItem(db, result.runId, key));
      expect(checks('main/question/full/0')).toContain('2 credits, at most 5 expected');
      expect(checks('main/question/uncounted/0')).toContain('not measured: the API reported no credits');
      expect(checks('main/question/uncounted/0')).toContain('90 tokens, at most 100 expected');
      expect(checks('main/question/nulls/0')).toContain('not measured: the API reported no credits');
    } finally {
      run.close();
    }
    const report = await writeReport({ db: dbPath, run: 'latest', out: path.join(tempDir(), 'report'), formats: new Set(['json']) });
    const main = report.data.summary.find((s) => s.scope === 'target' && s.target === 'main')!;
    expect(main.credits).toMatchObject({ count: 1, sum: 2 });
    expect(main.serverMs).toMatchObject({ p50: 3000, p90: 4000 });
  });
});
