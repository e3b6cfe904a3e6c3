// Stats that cannot be true (negative, not finite, absurdly large) from a server: recorded as anomalies of
// that reply, left out of sums, means and percentiles, and named in a warning of the report.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeReport } from '../../src/report/report.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { cleanup, runSuite, storedTurns, suite, target, tempDir } from '../runner/fixtures/harness.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

const GOOD = '{"time_millis":2000,"tool_calls":1,"total_input_tokens":100,"cached_tokens":0,"cache_creation_input_tokens":0,"prompt_tokens":10,"completion_tokens":20,"total_tokens":120,"credits":2}';
// 1e400 is read by JSON.parse as Infinity; a negative credit and 1e308 ms are as impossible.
const BAD = '{"time_millis":1e308,"tool_calls":1e400,"total_input_tokens":100,"cached_tokens":0,"cache_creation_input_tokens":0,"prompt_tokens":10,"completion_tokens":20,"total_tokens":120,"credits":-3}';

const ASKED: Record<number, string> = { 1: 'Where is it?', 2: 'Where is the impossible one?' };

/** A legacy server whose conversation 1 answers with good stats and 2 with impossible ones, each with the question asked. */
function conversation(id: number, status: string, stats: string): string {
  return `{"id":${id},"questions":[{"id":${id * 10},"question":"${ASKED[id]}","status":"${status}","answer":"a","stats":${stats}}]}`;
}

describe('stats that cannot be true', () => {
  it('are recorded as anomalies of the reply, kept out of the figures, and warned about in the report', async () => {
    server = await startServer((req, res, body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const zeros = GOOD.replace(/\d+(?=[,}])/g, '0');
      if (req.method === 'POST') return res.end(conversation(body.includes('impossible') ? 2 : 1, 'processing', zeros));
      const id = Number(/\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
      // The run's reachability check lists conversations first.
      if (!id) return res.end('[]');
      res.end(conversation(id, 'completed', id === 2 ? BAD : GOOD));
    });
    const loaded = await suite(`name: anomalies
defaults: { api: legacy, concurrency: 1, poll: { strategy: fixed, interval: 100ms, min: 100ms } }
questions:
  - { id: good, question: Where is it? }
  - { id: bad, question: Where is the impossible one? }
`);
    const run = await runSuite(loaded, [target({ name: 'main', emulator: server.url })]);
    let dbPath: string;
    try {
      const { db, result } = run;
      dbPath = run.dbPath;
      expect(storedTurns(db, result.runId, 'main/question/bad/0')).toMatchObject([
        {
          state: 'completed',
          credits: null,
          timeMillis: null,
          toolCalls: null,
          anomalies: JSON.stringify([
            'stats.time_millis 1e+308 is larger than any answer can take (2592000000)',
            'stats.tool_calls Infinity is not finite',
            'stats.credits -3 is negative',
          ]),
        },
      ]);
      expect(storedTurns(db, result.runId, 'main/question/good/0')).toMatchObject([{ credits: 2, timeMillis: 2000, anomalies: null }]);
      expect(run.reporter.logs).toContain(
        'main/question/bad/0 turn 1: stats that cannot be true, left out of sums: stats.time_millis 1e+308 is larger than any answer can take (2592000000), stats.tool_calls Infinity is not finite, stats.credits -3 is negative',
      );
    } finally {
      run.close();
    }

    const report = await writeReport({ db: dbPath, run: 'latest', out: path.join(tempDir(), 'report'), formats: new Set(['md', 'json']) });
    const main = report.data.summary.find((s) => s.scope === 'target' && s.target === 'main')!;
    expect(main.credits).toMatchObject({ count: 1, sum: 2, mean: 2 });
    expect(main.serverMs.p99).toBeLessThan(60_000);
    expect(report.data.anomalies).toEqual([{ target: 'main', itemKey: 'main/question/bad/0', turn: 0, anomalies: expect.arrayContaining(['stats.credits -3 is negative']) }]);
    expect(report.markdown).toContain('> [!WARNING]\n> 1 reply gave stats that cannot be true; their stats are left out of every sum, mean and percentile: `main/question/bad/0` turn 1: stats.time_millis');
    expect(report.text).toContain('1 reply gave stats that cannot be true');
    // With the CSV files the anomalies come from the questions.csv rows, not their own query: the same list.
    const withCsv = await writeReport({ db: dbPath, run: 'latest', out: path.join(tempDir(), 'report-csv'), formats: new Set(['csv', 'md']) });
    expect(withCsv.data.anomalies).toEqual(report.data.anomalies);
  });
});
