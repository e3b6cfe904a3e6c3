import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DsbenchError, NothingToCompareError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { headers } from '../../src/report/csv.js';
import { QUESTION_COLUMNS } from '../../src/report/questions-csv.js';
import { writeReport } from '../../src/report/report.js';
import { SUMMARY_COLUMNS } from '../../src/report/summary.js';
import { type Store, openStore } from '../../src/store/store.js';
import { completed, csvObjects, failed, question, recordRun, search, searchRecord, stats, useTempStore } from './fixtures.js';

let dir: string;
let db: string;
let store: Store;
useTempStore((t) => ({ dir, db, store } = t));

const NOW = new Date('2025-03-01T02:00:00.000Z');
const ALL = new Set(['csv', 'md', 'json'] as const);

/**
 * prod: q1 (tags a b; two turns, server 1000 and 3000 ms), q2 (tag a; INTERNAL error), q3 (tag b; server 2000,
 * 5 credits), q4 (tag a; pending); staging: q1 (tag a); searches s1 (complete) and s2 (error) on prod.
 */
function seed(): number {
  const runId = recordRun(store, [
    { item: question('q1', 'prod', 0, ['a', 'b']), turns: [completed(), completed({ serverMs: 3000 })], expectations: [{ name: 'contains', passed: true, reason: 'found retry' }] },
    { item: question('q2', 'prod', 0, ['a']), turns: [failed()], expectations: [{ name: 'state', passed: false, reason: 'expected completed, got error' }] },
    { item: question('q3', 'prod', 0, ['b']), turns: [completed({ serverMs: 2000, credits: 5, tokens: 3000, toolCalls: 4 })], expectations: [{ name: 'contains', passed: true, reason: 'ok', turn: 0 }] },
    { item: question('q4', 'prod', 0, ['a']), leave: 'pending' },
    { item: question('q1', 'staging', 0, ['a']), turns: [completed()] },
    { item: search('s1', 'prod'), search: searchRecord({ wallMs: 150.30000000000001, timeToFirstEventMs: 19.700000000000003 }), expectations: [{ name: 'minCount', passed: true, reason: '10 >= 1' }] },
    { item: search('s2', 'prod'), search: searchRecord({ verdict: 'error', matchCount: undefined, counted: 0, error: 'unknown field "lang"', durationMs: undefined, wallMs: 30, timeToFirstMatchMs: undefined, exhaustive: undefined }) },
  ]);
  const r = store.recorder;
  r.quotaSnapshot(runId, 'prod', { totalQuota: 100, quotaLimit: 1000, resetTime: '2025-03-10T00:00:00.000Z' }, '2025-03-01T00:00:03.000Z');
  r.quotaSnapshot(runId, 'prod', { totalQuota: 109, quotaLimit: 1000, resetTime: '2025-03-10T00:00:00.000Z' }, '2025-03-01T00:10:00.000Z');
  r.quotaSnapshot(runId, 'staging', { totalQuota: 5, quotaLimit: -1 }, '2025-03-01T00:00:04.000Z');
  r.commit();
  return runId;
}

describe('report of a run', () => {
  it('writes every file with its documented header', async () => {
    seed();
    const result = await writeReport({ db, run: 'latest', out: path.join(dir, 'out'), formats: ALL, now: NOW });
    expect(result.files.map((f) => path.basename(f))).toEqual(['questions.csv', 'searches.csv', 'summary.csv', 'search-summary.csv', 'costs.csv', 'report.md', 'report.json']);
    const questionsHeader = fs.readFileSync(path.join(dir, 'out', 'questions.csv'), 'utf8').split('\n')[0];
    expect(questionsHeader).toBe(headers(QUESTION_COLUMNS).join(','));
    expect(headers(QUESTION_COLUMNS)).toEqual([
      'run_id', 'target', 'question_id', 'repeat', 'turn', 'item_key', 'tags', 'item_status', 'item_outcome', 'state', 'error_code',
      'error_raw_code', 'error_message', 'error_title', 'error_details', 'error_retry_time', 'client_error', 'wall_ms', 'server_ms',
      'server_ms_source', 'polls', 'sent_at', 'observed_end_at', 'server_created_at', 'server_updated_at', 'time_millis', 'tool_calls',
      'total_input_tokens', 'cached_tokens', 'cache_creation_input_tokens', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'credits',
      'expect_verdict', 'expect_reasons', 'item_expect_verdict', 'conversation_ref', 'server_question_id', 'question', 'title', 'answer',
      'source_count', 'sources', 'suggested_followups', 'judge_score', 'citations_valid', 'citations_invalid', 'citation_validity',
      'answer_chars', 'answer_partial', 'trace_id', 'trace_url',
    ]);
    expect(fs.readFileSync(path.join(dir, 'out', 'summary.csv'), 'utf8').split('\n')[0]).toBe(headers(SUMMARY_COLUMNS).join(','));
  });

  it('questions.csv: one row per asked question with stats, verdicts and sources', async () => {
    const runId = seed();
    await writeReport({ db, run: String(runId), out: path.join(dir, 'out'), formats: new Set(['csv']), now: NOW });
    const rows = csvObjects(path.join(dir, 'out', 'questions.csv'));
    expect(rows.map((r) => `${r.target}/${r.question_id}/${r.turn}`)).toEqual(['prod/q1/0', 'prod/q1/1', 'prod/q2/0', 'prod/q3/0', 'staging/q1/0']);
    expect(rows[0]).toMatchObject({
      run_id: String(runId),
      repeat: '0',
      tags: 'a b',
      item_status: 'done',
      item_outcome: 'completed',
      state: 'completed',
      error_code: '',
      wall_ms: '1500',
      server_ms: '1000',
      server_ms_source: 'stats.time_millis',
      polls: '3',
      time_millis: '1000',
      tool_calls: '2',
      total_tokens: '1000',
      credits: '2',
      // The item-level check (no turn) belongs to the last turn.
      expect_verdict: 'none',
      expect_reasons: '',
      item_expect_verdict: 'pass',
      conversation_ref: 'c-prod/question/q1/0',
      server_question_id: '101',
      source_count: '2',
      sources: '/github.com/org/repo\n/github.com/org/repo/-/blob/retry.ts',
      suggested_followups: 'Which codes?\nHow long?',
      judge_score: '',
      citations_valid: '0',
      citations_invalid: '0',
      citation_validity: '',
    });
    expect(rows[1]).toMatchObject({ turn: '1', server_ms: '3000', expect_verdict: 'pass', expect_reasons: 'contains: pass: found retry' });
    expect(rows[2]).toMatchObject({
      state: 'error',
      error_code: 'INTERNAL',
      error_raw_code: 'InternalError',
      error_message: 'the agent failed',
      expect_verdict: 'fail',
      expect_reasons: 'state: fail: expected completed, got error',
      title: '',
      answer: '',
      source_count: '0',
    });
    expect(rows[3]).toMatchObject({ expect_verdict: 'pass', credits: '5' });
  });

  it('neutralizes formulas in text cells but keeps numbers as numbers', async () => {
    recordRun(store, [
      { item: question('q1'), turns: [completed({ answer: '=HYPERLINK("http://evil")', title: '@SUM(1)', text: '-2+3' })] },
      { item: question('q2'), turns: [completed({ answer: '+cmd', title: '\tTabbed', wallMs: -5 })] },
    ]);
    await writeReport({ db, run: 'latest', out: path.join(dir, 'out'), formats: new Set(['csv']), now: NOW });
    const rows = csvObjects(path.join(dir, 'out', 'questions.csv'));
    expect(rows[0]).toMatchObject({ answer: '\'=HYPERLINK("http://evil")', title: "'@SUM(1)", question: "'-2+3" });
    expect(rows[1]).toMatchObject({ answer: "'+cmd", title: "'\tTabbed", wall_ms: '-5' });
  });

  it('redacts secret-looking text in every output', async () => {
    recordRun(store, [
      { item: question('q1'), turns: [{ ...failed('INTERNAL', 'auth failed for token sgp_0123456789abcdef'), answer: 'use access_token=abc123secret' }] },
    ]);
    const result = await writeReport({ db, run: 'latest', out: path.join(dir, 'out'), formats: ALL, now: NOW });
    for (const file of result.files) {
      const content = fs.readFileSync(file, 'utf8');
      expect(content, file).not.toContain('sgp_0123456789abcdef');
      expect(content, file).not.toContain('abc123secret');
    }
    expect(csvObjects(path.join(dir, 'out', 'questions.csv'))[0]!.error_message).toBe('auth failed for token [REDACTED]');
  });

  it('searches.csv: one row per search', async () => {
    seed();
    await writeReport({ db, run: 'latest', out: path.join(dir, 'out'), formats: new Set(['csv']), now: NOW });
    const rows = csvObjects(path.join(dir, 'out', 'searches.csv'));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ search_id: 's1', verdict: 'complete', match_count: '10', counted: '10', exhaustive: 'true', duration_ms: '120', wall_ms: '150', time_to_first_event_ms: '20', time_to_first_match_ms: '40', expect_verdict: 'pass', expect_reasons: 'minCount: pass: 10 >= 1' });
    expect(rows[1]).toMatchObject({ search_id: 's2', verdict: 'error', match_count: '', exhaustive: '', error: 'unknown field "lang"', expect_verdict: 'none' });
  });

  it('summary.csv: per target and per tag, hand-computed', async () => {
    seed();
    await writeReport({ db, run: 'latest', out: path.join(dir, 'out'), formats: new Set(['csv']), now: NOW });
    const rows = csvObjects(path.join(dir, 'out', 'summary.csv'));
    expect(rows.map((r) => `${r.scope}:${r.target}:${r.tag}`)).toEqual(['target:prod:', 'tag:prod:a', 'tag:prod:b', 'target:staging:', 'tag:staging:a']);
    // prod: server [1000, 3000, 200, 2000] -> sorted 200 1000 2000 3000: p50 rank 2, p90 rank ceil(3.6) = 4.
    expect(rows[0]).toMatchObject({
      items: '4', items_done: '3', items_running: '0', items_pending: '1', items_skipped: '0',
      questions: '4', completed: '3', error: '1', canceled: '0', timeout: '0', client_error: '0', in_progress: '0', failed: '1',
      errors_internal: '1', errors_token_limit_exceeded: '0',
      wall_ms_p50: '1500', wall_ms_p90: '3500', wall_ms_p99: '3500',
      server_ms_p50: '1000', server_ms_p90: '3000', server_ms_p99: '3000',
      tokens_sum: '5000', tokens_mean: '1250', tokens_p90: '3000',
      credits_sum: '9', credits_mean: '2.25', credits_p90: '5',
      tool_calls_sum: '8', tool_calls_mean: '2',
      expect_items: '3', expect_passed: '2',
    });
    expect(Number(rows[0]!.expect_pass_rate)).toBeCloseTo(2 / 3, 12);
    // prod/a: q1 (two turns), q2, q4 (pending): server [1000, 3000, 200] -> p50 rank 2 = 1000, p90 rank 3 = 3000.
    expect(rows[1]).toMatchObject({ items: '3', items_pending: '1', questions: '3', completed: '2', error: '1', server_ms_p50: '1000', server_ms_p90: '3000', credits_sum: '4', expect_items: '2', expect_passed: '1', expect_pass_rate: '0.5' });
    // prod/b: q1 (two turns), q3: server [1000, 3000, 2000] -> p50 2000.
    expect(rows[2]).toMatchObject({ items: '2', questions: '3', server_ms_p50: '2000', credits_sum: '9', credits_mean: '3', expect_pass_rate: '1' });
    expect(rows[3]).toMatchObject({ items: '1', questions: '1', server_ms_p50: '1000', expect_items: '0', expect_pass_rate: '' });
  });

  it('search-summary.csv: verdicts, matches and latency per target', async () => {
    seed();
    await writeReport({ db, run: 'latest', out: path.join(dir, 'out'), formats: new Set(['csv']), now: NOW });
    const rows = csvObjects(path.join(dir, 'out', 'search-summary.csv'));
    expect(rows[0]).toMatchObject({ scope: 'target', target: 'prod', items: '2', searches: '2', complete: '1', error: '1', exhaustive: '1', matches_sum: '10', matches_mean: '5', wall_ms_p50: '30', wall_ms_p90: '150', duration_ms_p50: '120', first_match_ms_p50: '40', expect_items: '1', expect_pass_rate: '1' });
    expect(rows[1]).toMatchObject({ scope: 'target', target: 'staging', items: '0', searches: '0', wall_ms_p50: '' });
  });

  it('costs.csv: per question, tag and target, quota snapshots and a projection', async () => {
    seed();
    await writeReport({ db, run: 'latest', out: path.join(dir, 'out'), formats: new Set(['csv']), now: NOW });
    const rows = csvObjects(path.join(dir, 'out', 'costs.csv'));
    const q1 = rows.find((r) => r.section === 'question' && r.target === 'prod' && r.question_id === 'q1')!;
    expect(q1).toMatchObject({ conversations: '1', questions: '2', credits_sum: '4', credits_mean: '2', credits_per_conversation: '4', credits_per_1000_questions: '2000' });
    const target = rows.find((r) => r.section === 'target' && r.target === 'prod')!;
    expect(target).toMatchObject({ conversations: '3', questions: '4', questions_with_credits: '4', credits_sum: '9', credits_mean: '2.25', credits_p90: '5', credits_per_1000_questions: '2250', credits_per_conversation: '3' });
    expect(rows.filter((r) => r.section === 'tag').map((r) => `${r.target}/${r.tag}`)).toEqual(['prod/a', 'prod/b', 'staging/a']);
    expect(rows.filter((r) => r.section === 'quota_snapshot')).toHaveLength(3);
    const projection = rows.find((r) => r.section === 'projection' && r.target === 'prod')!;
    // q4 is pending: one run costs 9 credits / 3 started conversations * 4 planned = 12; 1000 - 109 = 891 left -> 74 runs.
    expect(projection).toMatchObject({
      total_quota: '109',
      quota_limit: '1000',
      quota_remaining: '891',
      quota_used_in_run: '9',
      credits_per_suite_run: '12',
      runs_left: '74',
      seconds_to_reset: String(8 * 86400 + 22 * 3600),
      time_to_reset: '8d 22h 0m',
    });
    expect(projection.suite_run_basis).toMatch(/^estimated/);
    const staging = rows.find((r) => r.section === 'projection' && r.target === 'staging')!;
    expect(staging).toMatchObject({ quota_limit: '-1', quota_remaining: '', runs_left: '' });
    expect(staging.note).toMatch(/unlimited/);
  });

  it('report.md and report.json summarize for people and machines', async () => {
    const runId = seed();
    const result = await writeReport({ db, run: 'nightly', out: path.join(dir, 'out'), formats: ALL, now: NOW });
    const md = fs.readFileSync(path.join(dir, 'out', 'report.md'), 'utf8');
    expect(md).toBe(result.markdown);
    expect(md).toContain(`## dsbench report: run ${runId}`);
    expect(md).toContain('| target | items | completed | errors | turns asked |');
    expect(md).toContain('INTERNAL');
    expect(md).toContain('`prod/q2#0` state: expected completed, got error');
    expect(md).toContain('unlimited');
    expect(result.text).toContain('Questions');
    expect(result.text).not.toContain('|');
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'report.json'), 'utf8')) as Record<string, unknown>;
    expect(json).toMatchObject({ run: { id: runId, label: 'nightly' }, counts: { items: 7, turns: 5, searches: 2 }, inProgress: true, itemsPending: 1 });
  });

  it('the same figures whether the summaries are fed by the CSV exports (items with their rows) or by their own queries', async () => {
    seed();
    // The rows of one more run, in progress, with an item that ended before its first turn: the other run is not counted.
    recordRun(store, [{ item: question('q1'), turns: [completed()] }, { item: question('q2'), leave: 'running' }], { status: 'running' });
    for (const run of ['1', '2']) {
      const fromExports = (await writeReport({ db, run, out: path.join(dir, `csv-${run}`), formats: new Set(['csv', 'json']), now: NOW })).data;
      const ownQueries = (await writeReport({ db, run, out: path.join(dir, `json-${run}`), formats: new Set(['json']), now: NOW })).data;
      expect({ ...fromExports, generatedAt: '' }).toEqual({ ...ownQueries, generatedAt: '' });
    }
  });

  it('cached input tokens: their mean per asked question in report.md, report.json and the HTML summary', async () => {
    recordRun(store, [
      { item: question('q1', 'prod'), turns: [completed({ stats: stats({ cachedTokens: 300 }) }), completed({ stats: stats({ cachedTokens: 500 }) })] },
      { item: question('q1', 'staging'), turns: [completed({ stats: stats({ cachedTokens: 12_000 }) })] },
    ]);
    await store.recorder.committed();
    const result = await writeReport({ db, run: 'latest', out: path.join(dir, 'out'), formats: new Set(['md', 'json', 'html']), now: NOW });
    expect(result.data.summary.filter((s) => s.scope === 'target').map((s) => [s.target, s.cachedTokens])).toEqual([
      ['prod', { count: 2, sum: 800, mean: 400 }],
      ['staging', { count: 1, sum: 12_000, mean: 12_000 }],
    ]);
    const table = result.markdown.split('\n').filter((line) => line.startsWith('| '));
    expect(table[0]).toContain('| tokens mean | cached tokens mean | credits |');
    expect(table.find((line) => line.startsWith('| prod '))).toMatch(/\| 1,000 \| 400 \| 4 \|/);
    expect(table.find((line) => line.startsWith('| staging '))).toMatch(/\| 1,000 \| 12,000 \| 2 \|/);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'out', 'report.json'), 'utf8')).summary[0].cachedTokens).toEqual({ count: 2, sum: 800, mean: 400 });
    const html = fs.readFileSync(path.join(dir, 'out', 'report.html'), 'utf8');
    expect(html).toContain('"target":"prod","items":1,"questions":2,');
    expect(html).toMatch(/"target":"prod"[^}]*"tokens":1000,"cachedTokens":400,/);
    expect(html).toContain('"tokens mean", "cached tokens mean"');
  });

  it('writes only what the format asks for', async () => {
    seed();
    const result = await writeReport({ db, run: 'latest', out: path.join(dir, 'md-only'), formats: new Set(['md']), now: NOW });
    expect(fs.readdirSync(path.join(dir, 'md-only'))).toEqual(['report.md']);
    expect(result.files).toEqual([path.join(dir, 'md-only', 'report.md')]);
  });
});

describe('edge cases', () => {
  it('an empty run: headers only, a row per target, no crash', async () => {
    const runId = store.recorder.createRun(
      { label: undefined, suiteName: 'empty', suitePath: 's.yaml', suiteHash: 'x', dsbenchVersion: '0.1.0', options: {}, startedAt: '2025-03-01T00:00:00.000Z' },
      [{ name: 'prod', url: 'https://x', api: 'versioned', emulated: false }],
      [],
    );
    store.recorder.setRunStatus(runId, 'completed', '2025-03-01T00:00:01.000Z');
    const result = await writeReport({ db, run: String(runId), out: path.join(dir, 'out'), formats: ALL, now: NOW });
    expect(csvObjects(path.join(dir, 'out', 'questions.csv'))).toEqual([]);
    expect(csvObjects(path.join(dir, 'out', 'searches.csv'))).toEqual([]);
    const summary = csvObjects(path.join(dir, 'out', 'summary.csv'));
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatchObject({ target: 'prod', items: '0', questions: '0', server_ms_p50: '', credits_sum: '', expect_pass_rate: '' });
    const projection = csvObjects(path.join(dir, 'out', 'costs.csv')).find((r) => r.section === 'projection')!;
    expect(projection.note).toMatch(/no quota snapshot/);
    expect(result.markdown).toContain('no items');
    expect(result.data.inProgress).toBe(false);
  });

  it('a run still in progress is reported as such', async () => {
    const runId = recordRun(
      store,
      [
        { item: question('q1'), turns: [completed()] },
        { item: question('q2'), turns: [{ state: 'processing', text: 'q', polls: 2, sentAt: '2025-03-01T00:00:01.000Z' }], leave: 'running' },
        { item: question('q3'), turns: [{ state: 'sending', text: 'q', polls: 0 }], leave: 'running' },
        { item: question('q4'), leave: 'pending' },
      ],
      { status: 'running' },
    );
    const result = await writeReport({ db, run: String(runId), out: path.join(dir, 'out'), formats: ALL, now: NOW });
    expect(result.data).toMatchObject({ inProgress: true, itemsPending: 1, itemsRunning: 2 });
    const rows = csvObjects(path.join(dir, 'out', 'questions.csv'));
    expect(rows.map((r) => `${r.question_id}:${r.state}:${r.item_status}`)).toEqual(['q1:completed:done', 'q2:processing:running', 'q3:sending:running']);
    const summary = csvObjects(path.join(dir, 'out', 'summary.csv'))[0]!;
    expect(summary).toMatchObject({ items: '4', items_done: '1', items_running: '2', items_pending: '1', questions: '3', completed: '1', in_progress: '2' });
    expect(result.markdown).toContain('This run is still running');
    expect(result.text).toContain('!! This run is still running: pending 1, running 2');
  });

  it('a run not found is nothing to report (exit 8), naming the database and suggesting dsbench runs', async () => {
    seed();
    const attempt = (run: string) => writeReport({ db, run, out: path.join(dir, 'x'), formats: ALL });
    await expect(attempt('99')).rejects.toThrow(NothingToCompareError);
    await expect(attempt('99')).rejects.toThrow(`no run 99 in ${db}; dsbench runs --db ${db} lists the runs.`);
    await expect(attempt('weekly')).rejects.toThrow(/no run labelled "weekly" in .*results\.db.*dsbench runs/);
    await expect(attempt('nightly~3')).rejects.toThrow(/not 3 earlier runs/);
    const error = await attempt('99').catch((e: unknown) => e);
    expect((error as DsbenchError).exitCode).toBe(ExitCode.nothingCompared);
    expect(fs.existsSync(path.join(dir, 'x'))).toBe(false);
  });

  it('an empty database has no latest run: exit 8', async () => {
    await expect(writeReport({ db, run: 'latest', formats: ALL })).rejects.toThrow(/no runs in .* yet/);
    await expect(writeReport({ db, run: 'latest', formats: ALL })).rejects.toMatchObject({ exitCode: ExitCode.nothingCompared });
  });

  it('a missing or foreign database file is a clear usage error, and is not created', async () => {
    const missing = path.join(dir, 'nope', 'results.db');
    await expect(writeReport({ db: missing, run: 'latest', formats: ALL })).rejects.toThrow(`no results database at ${missing}`);
    expect(fs.existsSync(missing)).toBe(false);
    const junk = path.join(dir, 'junk.db');
    fs.writeFileSync(junk, 'this is not sqlite at all, just some text that is long enough to be a header'.repeat(20));
    await expect(writeReport({ db: junk, run: 'latest', formats: ALL })).rejects.toThrow(/not a SQLite database/);
    await expect(writeReport({ db: dir, run: 'latest', formats: ALL })).rejects.toThrow(/is a folder/);
  });

  it('selects runs by label and ~N', async () => {
    const first = seed();
    const second = recordRun(store, [{ item: question('q1'), turns: [completed()] }]);
    const third = recordRun(store, [{ item: question('q1'), turns: [completed()] }], { info: { label: 'adhoc' } });
    const runOf = async (sel: string) => (await writeReport({ db, run: sel, out: path.join(dir, sel.replace(/\W/g, '_')), formats: new Set(['json']) })).data.run.id;
    expect(await runOf('latest')).toBe(third);
    expect(await runOf('latest~1')).toBe(second);
    expect(await runOf('nightly')).toBe(second);
    expect(await runOf('nightly~1')).toBe(first);
    expect(await runOf(`${third}~2`)).toBe(first);
    expect(await runOf(String(first))).toBe(first);
  });

  it('reads one snapshot while another connection keeps writing', async () => {
    const runId = recordRun(store, [{ item: question('q1'), turns: [completed()] }, { item: question('q2'), leave: 'pending' }], { status: 'running' });
    // The snapshot is taken before writeReport first yields; the writer commits while the export streams.
    const pending = writeReport({ db, run: String(runId), out: path.join(dir, 'out'), formats: new Set(['csv']), now: NOW });
    const writer = openStore(db);
    writer.recorder.recordTurn(runId, question('q2').key, 0, completed());
    writer.recorder.itemFinished(runId, question('q2').key, 'completed', '2025-03-01T00:00:09.000Z');
    writer.close();
    const result = await pending;
    expect(result.data.counts.turns).toBe(1);
    expect(csvObjects(path.join(dir, 'out', 'questions.csv'))).toHaveLength(1);
    expect(csvObjects(path.join(dir, 'out', 'summary.csv'))[0]).toMatchObject({ questions: '1', items_pending: '1' });
  });
});
