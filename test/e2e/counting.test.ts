// One way to count: the progress line, the run summary, report.md, report.html and the history count items,
// turns and checks alike; an expected error is no failure anywhere; the summary names the failing items.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReport } from '../../src/cli/report.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { dsbenchHere, WIDE } from '../helpers/cli-here.js';
import { FAST, cleanup, emulator, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const TOKEN = 'sgp_counting_token_0123456789abcdef';
// Four items, five turns: one completes with a follow-up, one fails a check, one errs unexpectedly, one errs as expected.
const SUITE = `name: counting
defaults: { api: legacy, poll: { strategy: fixed, interval: 1s } }
questions:
  - id: answered
    question: Where is retryPolicy implemented?
    followups: [Who calls it?]
  - id: wrong
    question: Where is backoffDelay implemented?
    expect: { contains: nothing-like-this }
  - id: broken
    question: "[[internal-error]] Where is parseSuite?"
  - id: expected
    question: "[[internal-error]] Where is parseRetry?"
    expect: { state: error }
`;

let e: RunningEmulator;
beforeAll(async () => {
  e = await emulator({ ...FAST, users: [{ id: 1, username: 'admin', tokens: [{ token: TOKEN, scopes: ['externalapi:read', 'externalapi:write'] }] }] });
});
afterAll(cleanup);

async function report(db: string, format: string, history?: number) {
  const out = path.join(tempDir(), 'out');
  let printed = '';
  await runReport({ db, format, out, ...(history === undefined ? { run: 'latest' } : { history }) }, { write: (t: string) => (printed += t) });
  return { printed, out };
}

describe('every view counts alike', () => {
  it('items, errors (expected apart), turns and checks agree; the summary names the failing items with their first reason', async () => {
    const db = path.join(tempDir(), 'runs.db');
    const exit = await dsbenchHere(['run', writeSuite(SUITE), '--endpoint', e.url, '--db', db, '--reporter', 'lines'], { SRC_ACCESS_TOKEN: TOKEN, ...WIDE });
    expect(exit.code, exit.stderr).toBe(1);
    // The progress line and the summary: 1 error and 1 expected, 1 check failed of 2.
    expect(exit.stderr).toMatch(/4\/4 done, 0 running, 1 errors \(\+1 expected\), 1 checks failed/);
    expect(exit.stdout).toMatch(/default +2 +1 +1 +\d+ +1 +1\n/);
    expect(exit.stdout).toMatch(/Errors: 1 \(\+1 expected\)\. Checks: 1 passed, 1 failed\./);
    expect(exit.stdout).toContain(
      [
        'Failing items: 2',
        '  default/wrong#0 (completed): contains: ',
      ].join('\n'),
    );
    expect(exit.stdout).toMatch(/\n {2}default\/broken#0 \(error\): INTERNAL: .+\n {2}details: npx dsbench report 1 --db .*runs\.db \(questions\.csv and searches\.csv have every reason\)\n/);
    expect(exit.stdout).not.toContain('default/expected#0');

    const md = (await report(db, 'md')).printed;
    // completed counts items (2), not turns (3); 5 turns asked.
    expect(md).toMatch(/\| default \| 4\/4 \| 2 \| 1 \(\+1 expected\) \| 5 \| 0 \| 50\.0% \|/);
    // Per question too: the expected error is no error.
    expect(md).toMatch(/\| default \| expected \| 1 \| 1 \| 0 \| 1 \| 0 \| 0 \(\+1 expected\) \|/);
    expect(md).toMatch(/\| default \| answered \| 1 \| 0 \| 0 \| 2 \| 1 \| 0 \|/);

    const html = readFileSync(path.join((await report(db, 'html')).out, 'report.html'), 'utf8');
    expect(html).toContain('"completed":2,"errors":"1 (+1 expected)"');
    expect(html).toMatch(/"history":\[\{[^\]]*"completed":2,"failed":1,"expectedErrors":1,"inProgress":0,"errorRate":0\.25/);

    const history = await report(db, 'csv,md', 5);
    expect(history.printed).toMatch(/\| default \| [^|]+ \| 4 \| 2 \| 1 \(\+1 expected\) \| 5 \|/);
    expect(readFileSync(path.join(history.out, 'history.csv'), 'utf8')).toMatch(/,default,4,4,0,5,2,1,1,0,0\.25,/);
  });
});
