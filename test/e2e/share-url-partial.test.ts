// Real servers' versioned replies as they are, through the whole CLI on an emulator that sends them: the
// `url` of a conversation is its share URL (anyone who has it can read the conversation), so it must reach no
// output, file, database byte or log; and an answer cut short by ERROR_INTERNAL is recorded, counted and
// shown beside its error.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { prepareCli, type Cli, type Run } from '../helpers/cli.js';
import { ADMIN, closeAll, emulator, FAST, raw } from '../helpers/emulator.js';
import { csvObjects } from '../report/fixtures.js';
import { tempDir } from '../runner/fixtures/harness.js';

const SHARE_URL = /\/deepsearch\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const OUTPUT_LIMIT = 'This response exceeded the maximum output length.';

let cli: Cli;
let e: RunningEmulator;
let dir: string;
const runs: Run[] = [];
/** `report` and the other commands that only read the database take no endpoint. */
const dsbench = async (args: string[], endpoint = true) => {
  const run = await cli.run([...args, ...(endpoint ? ['--endpoint', e.url] : [])], { SRC_ACCESS_TOKEN: ADMIN });
  runs.push(run);
  return run;
};

beforeAll(async () => {
  cli = prepareCli();
  e = await emulator(FAST);
  dir = tempDir('dsbench-share-url-');
});
afterAll(closeAll);

/** Every file under `folder`, as text (database pages and the WAL as bytes read as latin1). */
function filesUnder(folder: string): Array<{ file: string; text: string }> {
  return readdirSync(folder).flatMap((name) => {
    const file = path.join(folder, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [{ file, text: readFileSync(file).toString('latin1') }];
  });
}

describe('the share URL and partial answers, through the CLI', () => {
  it('a run, its reports, ask and conversations keep the share URL out; the partial answer is recorded, counted and shown', async () => {
    const suite = path.join(dir, 'suite.yaml');
    writeFileSync(
      suite,
      `name: real-shapes
defaults: { api: versioned, poll: { strategy: fixed, interval: 20ms, min: 20ms } }
questions:
  - id: whole
    question: Where is retryPolicy implemented?
    followups: [Who calls retryPolicy?]
  - id: cut
    question: Where is backoffDelay implemented? [[output-limit]]
  - id: refused
    question: Where is parseSuite implemented? [[token-limit]]
`,
    );
    const db = path.join(dir, 'results', 'runs.db');
    const out = path.join(dir, 'results', 'report');
    const run = await dsbench(['run', suite, '--db', db, '--json']);
    expect([0, 1], run.stderr).toContain(run.code);
    // The commands that do not depend on each other run at the same time.
    const [report, asked, text] = await Promise.all([
      dsbench(['report', 'latest', '--db', db, '--out', out, '--format', 'csv,md,json,html'], false),
      dsbench(['ask', 'Where is jitter implemented? [[output-limit]]', '--json', '--poll-interval', '20ms']),
      dsbench(['ask', 'Where is jitter implemented? [[output-limit]]', '--poll-interval', '20ms']),
    ]);
    expect(report.code, report.stderr).toBe(0);
    const name = JSON.parse(asked.stdout).name as string;
    const [shown, shownJson, listed] = await Promise.all([
      dsbench(['conversations', 'show', name]),
      dsbench(['conversations', 'show', name, '--json']),
      dsbench(['conversations', 'list', '--json']),
    ]);
    for (const r of [shown, shownJson, listed]) expect(r.code, r.stderr).toBe(0);

    // The emulator sends a share URL with every conversation: each one, and the form, are looked for.
    const list = await raw(e, 'POST', '/api/deepsearch.v1.Service/ListConversationSummaries', { body: { pageSize: 100 }, headers: { 'connect-protocol-version': '1' } });
    const summaries = list.json.conversationSummaries as Array<{ url: string }>;
    const urls = summaries.map((s) => s.url);
    expect(urls).toHaveLength(5);
    for (const url of urls) expect(url).toMatch(SHARE_URL);
    const tokens = urls.map((u) => u.split('/').pop()!);
    const places = [...cli.printed.map((p, i) => ({ file: `output ${i}`, text: p })), ...filesUnder(path.join(dir, 'results'))];
    expect(places.some((p) => p.file.endsWith('runs.db'))).toBe(true);
    expect(places.some((p) => p.file.endsWith('report.html'))).toBe(true);
    for (const { file, text: body } of places) {
      expect(SHARE_URL.test(body), `a share URL in ${file}`).toBe(false);
      for (const token of tokens) expect(body.includes(token), `a share token in ${file}`).toBe(false);
    }
    expect(shown.stdout).toContain(`Its share URL is not printed: anyone who has it can read the conversation. Open ${name} from Deep Search's history`);

    // ask: the partial answer beside its error.
    expect(asked.code).toBe(1);
    expect(JSON.parse(asked.stdout)).toMatchObject({ state: 'error', errorCode: 'TRUNCATED', rawErrorCode: 'ERROR_INTERNAL', partial: true, answer: expect.stringMatching(/\S/) });
    expect(text.stdout, text.stdout.slice(0, 600)).toMatch(/State: error — TRUNCATED \(ERROR_INTERNAL\): This response exceeded the maximum output length\. .*\nPartial answer: the error stopped it after \d+ characters\n/);

    // The run: recorded, counted in the answer's length, shown in report.html beside the error.
    const rows = csvObjects(path.join(out, 'questions.csv'));
    const cut = rows.find((r) => r.question_id === 'cut')!;
    expect(cut).toMatchObject({ state: 'error', error_code: 'TRUNCATED', error_raw_code: 'ERROR_INTERNAL', answer_partial: 'true' });
    expect(cut.error_message).toContain(OUTPUT_LIMIT);
    expect(Number(cut.answer_chars)).toBe(cut.answer!.length);
    expect(cut.answer!.length).toBeGreaterThan(50);
    const refused = rows.find((r) => r.question_id === 'refused')!;
    expect(refused).toMatchObject({ state: 'error', error_code: 'TOKEN_LIMIT_EXCEEDED', answer: '', answer_chars: '', answer_partial: 'false' });
    expect(rows.filter((r) => r.question_id === 'whole').map((r) => r.answer_partial)).toEqual(['false', 'false']);
    const html = readFileSync(path.join(out, 'report.html'), 'utf8');
    // The page's data row of the turn: its error message and the partial flag beside the answer it shows.
    const data = JSON.parse(/<script id="dsbench-data" type="application\/json">([\s\S]*?)<\/script>/.exec(html)![1]!);
    const columns = data.turnColumns as string[];
    const row = (data.turns as unknown[][]).find((t) => t[columns.indexOf('id')] === 'cut')!;
    expect(row[columns.indexOf('partial')]).toBe(true);
    expect(row[columns.indexOf('errorMessage')]).toContain(OUTPUT_LIMIT);
    expect(row[columns.indexOf('answer')]).toBe(cut.answer);
    // Eight CLI processes, three at a time at most: generous for a full test run on a loaded machine.
  }, 60_000);
});
