// Grading end to end against the emulator: during a run, re-grading from the cache, and every judge failure.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pLimit from 'p-limit';
import { JudgeSchema } from '../../src/config/suite.js';
import { JudgeClient, resolveJudgeEndpoint } from '../../src/grade/judge-client.js';
import { comparePairwise, outcomeOf, suiteGuide } from '../../src/grade/pairwise.js';
import { RunGrading } from '../../src/grade/run-grading.js';
import { UsageError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { executeRun, type RunOptions } from '../../src/runner/run.js';
import { openStore, SqliteGradeStore, gradingSummary } from '../../src/store/index.js';
import { CapturingReporter, CORPUS_SEARCH, cleanup, corpusDir, emulator, runSuite, suite, target, tempDir } from '../runner/fixtures/harness.js';
import { startServer } from '../helpers/server.js';
import type { EmulatorOptions } from '../../src/emulator/index.js';

afterEach(cleanup);
beforeEach(() => {
  OPTIONS = { timeScale: 0.01, medianMs: 5_000, startTime: '2025-09-24T08:14:06Z', corpus: { dir: corpusDir(FILES) } };
});

/** A corpus small enough that the agent's searches never run out of real time, so answers are the same on a busy machine. */
const FILES = {
  'github.com/npm/undici/lib/handler/retry-handler.js': 'const { kRetry } = require("../core/symbols")\n\nclass RetryHandler {\n  constructor (opts) {\n    this.retryAfter = opts.retryAfter\n  }\n}\n\nmodule.exports = RetryHandler\n',
  'github.com/npm/undici/lib/dispatcher/agent.js': 'class Agent {\n  constructor ({ keepAliveTimeout } = {}) {\n    this.pools = new Map() // one Pool per origin\n    this.keepAliveTimeout = keepAliveTimeout\n  }\n}\nmodule.exports = Agent\n',
  'github.com/npm/undici/index.js': 'const RetryHandler = require("./lib/handler/retry-handler")\nconst Agent = require("./lib/dispatcher/agent")\nmodule.exports = { RetryHandler, Agent }\n',
  'github.com/npm/zod/index.js': 'export const z = {}\n',
};
let OPTIONS: EmulatorOptions;

const SUITE = `
name: graded
defaults: { api: legacy, timeout: 10m }
judge: { concurrency: 2 }
questions:
  - id: retry
    question: Where is RetryHandler implemented in undici?
    expect:
      rubric: Names \`RetryHandler\` and the file \`lib/handler/retry-handler.js\`.
      minScore: 0.5
      cites: [lib/handler/retry-handler.js, RetryHandler]
      minCitationValidity: 0.9
  - id: keepalive
    question: How does undici's Agent keep connections alive per origin?
    followups:
      - question: Which option sets the idle timeout?
        expect: { reference: The \`keepAliveTimeout\` option of the \`Agent\`. }
`;

async function run(text: string, emulatorOptions?: EmulatorOptions, env: Record<string, string> = {}) {
  const e = await emulator(emulatorOptions ?? OPTIONS, CORPUS_SEARCH);
  const loaded = await suite(text);
  const dbPath = path.join(tempDir(), 'runs.db');
  const store = openStore(dbPath);
  const reporter = new CapturingReporter();
  try {
    const result = await runGraded(
      {
      suite: loaded,
      targets: [target({ name: 'emu', emulator: e })],
      recorder: store.recorder,
      observers: [reporter],
      onQuota: 'stop',
      maxQuotaWaitMs: 60_000,
      cleanup: false,
      stop: new AbortController().signal,
      abort: new AbortController().signal,
      retry: { baseDelayMs: 1, maxDelayMs: 20, maxAttempts: 2 },
      },
      new SqliteGradeStore(store.db),
      env,
    );
    return { e, result, reporter, dbPath, loaded, grades: gradingSummary(store.db, result.runId) };
  } finally {
    store.close();
  }
}

/** executeRun grading as the CLI does: the grade module's RunGrading is the run's live grader. */
async function runGraded(options: Omit<RunOptions, 'grader'>, grades: SqliteGradeStore, env: Record<string, string>) {
  const resolved = options.suite.resolved;
  const grader = resolved.judge.during === 'run' ? RunGrading.create({ suite: resolved, store: grades, targets: options.targets, env, retry: options.retry, timeoutMs: options.requestTimeoutMs }) : undefined;
  try {
    return await executeRun({ ...options, grader });
  } finally {
    await grader?.close();
  }
}

function rows(dbPath: string, sql: string): Array<Record<string, unknown>> {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare(sql).all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}

describe('grading during a run', () => {
  it('grades each rubric and reference once, checks citations and cites, and re-grades from the cache with no judge call', async () => {
    const { e, result, dbPath, loaded, grades } = await run(SUITE);
    expect(rows(dbPath, "SELECT item_key, name, reason FROM expectations WHERE passed = 0")).toEqual([]);
    expect(result.exitCode).toBe(ExitCode.ok);
    expect(result.grading).toMatchObject({ items: 2, judgeCalls: 2, cacheHits: 0 });
    expect(e.counters()['llm.chat']).toBe(2);
    expect(grades[0]).toMatchObject({ target: 'emu', grades: 2, graded: 2, passed: 2, citations: { invalid: 0, unchecked: 0 } });
    expect(grades[0]!.citations.valid).toBeGreaterThan(2);
    const recorded = rows(dbPath, 'SELECT item_key, turn, spec, status, cached, prompt_hash FROM grades ORDER BY item_key');
    expect(recorded.map((r) => [r.item_key, r.turn, r.spec, r.status])).toEqual([
      ['emu/question/keepalive/0', 1, 'followup', 'graded'],
      ['emu/question/retry/0', 0, 'question', 'graded'],
    ]);
    const checks = rows(dbPath, "SELECT name, passed FROM expectations WHERE item_key = 'emu/question/retry/0' AND name IN ('minScore', 'cites', 'minCitationValidity')");
    expect(checks).toEqual([
      { name: 'minScore', passed: 1 },
      { name: 'minCitationValidity', passed: 1 },
      { name: 'cites', passed: 1 },
      { name: 'cites', passed: 1 },
    ]);

    // Re-grade: every verdict from the cache, the service never asked.
    const store = openStore(dbPath);
    const before = { ...e.counters() };
    const grading = RunGrading.create({ suite: loaded.resolved, store: new SqliteGradeStore(store.db), targets: [{ name: 'emu', connection: target({ name: 'emu', emulator: e }).connection }], env: {} })!;
    try {
      const state = store.recorder.loadRun(result.runId)!;
      for (const item of state.items) {
        const q = loaded.resolved.questions.find((x) => item.key.includes(`/${x.id}/`))!;
        await grading.grade(result.runId, item.key, 'emu', q, item.turns.map((t) => ({ turn: t.turn, state: t.state, text: t.text ?? '', answer: t.answer, sources: t.sources })));
      }
    } finally {
      await grading.close();
      store.close();
    }
    expect(grading.totals).toMatchObject({ judgeCalls: 0, cacheHits: 2 });
    expect(e.counters()['llm.chat']).toBe(before['llm.chat']);
    expect(e.counters()['legacy.create']).toBe(before['legacy.create']);
    expect(rows(dbPath, 'SELECT cached FROM grades').map((r) => r.cached)).toEqual([1, 1]);
  });

  it('fails minCitationValidity when the agent cites lines that do not exist', async () => {
    const { result, grades, dbPath } = await run(SUITE, { ...OPTIONS, agent: { badCitationRate: 1 } });
    expect(result.exitCode).toBe(ExitCode.expectationsFailed);
    expect(grades[0]!.citations.invalid).toBeGreaterThan(0);
    const validity = rows(dbPath, "SELECT passed, reason FROM expectations WHERE name = 'minCitationValidity'");
    expect(validity).toEqual([{ passed: 0, reason: expect.stringMatching(/^\d of \d+ citations resolve \(\d+%, at least 90% expected\)/) }]);
    const reasons = rows(dbPath, "SELECT DISTINCT reason FROM citations WHERE status = 'invalid'").map((r) => String(r.reason));
    expect(reasons.some((r) => /beyond the end of the file|not found in/.test(r))).toBe(true);
  });
});

describe('partial answers', () => {
  it('grades an answer cut short by the output limit, and its grade says it was partial', async () => {
    const text = SUITE.replace('Where is RetryHandler implemented in undici?', '"Where is RetryHandler implemented in undici? [[output-limit]]"');
    const { dbPath } = await run(text);
    const turn = rows(dbPath, "SELECT t.state FROM turns t WHERE t.item_key = 'emu/question/retry/0'")[0];
    expect(turn).toMatchObject({ state: 'error' });
    const grade = rows(dbPath, "SELECT status, reasons_json FROM grades WHERE item_key = 'emu/question/retry/0'")[0]!;
    expect(grade.status).toBe('graded');
    expect(JSON.parse(String(grade.reasons_json))[0]).toBe('partial answer: the turn ended error; graded on what it wrote before');
  });
});

describe('judge failures', () => {
  it('records prose instead of a verdict as unparseable, never a pass, and goes on', async () => {
    const text = SUITE.replace('Where is RetryHandler implemented in undici?', '"[[judge-prose]] Where is RetryHandler implemented in undici?"');
    const { result, reporter, dbPath } = await run(text);
    expect(result.exitCode).toBe(ExitCode.expectationsFailed);
    const grade = rows(dbPath, "SELECT status, passed, score, error FROM grades WHERE item_key = 'emu/question/retry/0'")[0];
    expect(grade).toMatchObject({ status: 'unparseable', passed: 0, score: null, error: expect.stringMatching(/^the judge replied with something other than a JSON verdict: "The answer looks reasonable/) });
    expect(rows(dbPath, "SELECT status FROM grades WHERE item_key = 'emu/question/keepalive/0'")).toEqual([{ status: 'graded' }]);
    expect(reporter.logs.some((l) => l.includes('emu/question/retry/0: grading turn 0: the judge replied'))).toBe(true);
    // Not cached: a re-grade asks again.
    expect(rows(dbPath, 'SELECT count(*) AS n FROM judge_cache')).toEqual([{ n: 1 }]);
  });

  it('records a judge that is down or refuses the model as an error per turn; the answers stay recorded', async () => {
    const e = await emulator(OPTIONS, CORPUS_SEARCH);
    e.injectFault({ operation: 'llm.chat', kind: '503', times: 4 });
    const loaded = await suite(SUITE);
    const dbPath = path.join(tempDir(), 'runs.db');
    const store = openStore(dbPath);
    try {
      const base = { suite: loaded, targets: [target({ name: 'emu', emulator: e })], recorder: store.recorder, observers: [new CapturingReporter()], onQuota: 'stop' as const, maxQuotaWaitMs: 1000, cleanup: false, stop: new AbortController().signal, abort: new AbortController().signal, retry: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 2 } };
      const down = await runGraded(base, new SqliteGradeStore(store.db), {});
      expect(down.exitCode).toBe(ExitCode.expectationsFailed);
      const errors = store.db.prepare('SELECT error FROM grades').pluck().all() as string[];
      expect(errors).toHaveLength(2);
      for (const error of errors) expect(error).toMatch(/^judge at http:\/\/127\.0\.0\.1:\d+\/\.api\/llm: POST \/chat\/completions failed with HTTP 503.*after 2 attempts\); the judge failed; grade again later with dsbench grade RUN$/);
      expect(store.db.prepare("SELECT count(*) FROM turns WHERE state = 'completed'").pluck().get()).toBe(3);

      const refused = await runGraded(base, new SqliteGradeStore(store.db), { DSBENCH_JUDGE_MODEL: 'nope::1::x' });
      const refusal = store.db.prepare('SELECT error FROM grades WHERE run_id = ?').pluck().all(refused.runId) as string[];
      // A well-formed model the instance does not serve is its handler's 500, named as it was sent.
      expect(refusal[0]).toMatch(/HTTP 500: failed to get a client for model "nope::1::x"/);
    } finally {
      store.close();
    }
  });

  it('refuses an external judge without DSBENCH_JUDGE_ENDPOINT before asking anything', async () => {
    const e = await emulator(OPTIONS, CORPUS_SEARCH);
    const text = SUITE.replace('judge: { concurrency: 2 }', 'judge: { endpoint: external }');
    await expect(run(text, undefined, {})).rejects.toThrow(UsageError);
    expect(e.counters()['legacy.create'] ?? 0).toBe(0);
  });

  it('uses DSBENCH_JUDGE_ENDPOINT with its own token and model', async () => {
    const judge = await emulator(OPTIONS, CORPUS_SEARCH);
    const { result, e } = await run(SUITE, undefined, { DSBENCH_JUDGE_ENDPOINT: `${judge.url}/.api/llm`, DSBENCH_JUDGE_TOKEN: 'sgp_emulator_alice_token', DSBENCH_JUDGE_MODEL: 'openai::2024-02-01::gpt-4o' });
    expect(result.grading?.judgeCalls).toBe(2);
    expect(judge.counters()['llm.chat']).toBe(2);
    expect(e.counters()['llm.chat']).toBe(0);
  });
});

describe('pairwise comparison', () => {
  it('reads a split verdict as a tie and only two agreeing verdicts as a win or a loss', () => {
    expect(outcomeOf('B', 'A')).toBe('win');
    expect(outcomeOf('A', 'B')).toBe('loss');
    expect(outcomeOf('A', 'A')).toBe('tie');
    expect(outcomeOf('tie', 'A')).toBe('tie');
    expect(outcomeOf(undefined, 'A')).toBe('undecided');
  });

  it('the candidate whose citations do not resolve loses, in both orders; asked again, every verdict comes from the cache', async () => {
    const base = await run(SUITE);
    const cand = await run(SUITE, { ...OPTIONS, agent: { badCitationRate: 1 } });
    const judgeEmulator = await emulator(OPTIONS, CORPUS_SEARCH);
    const bStore = openStore(base.dbPath);
    const cStore = openStore(cand.dbPath);
    const judge = new JudgeClient(resolveJudgeEndpoint(JudgeSchema.parse({}), target({ name: 'j', emulator: judgeEmulator }).connection, {}));
    try {
      const options = {
        baseline: { db: bStore.db, runId: base.result.runId, target: 'emu' },
        candidate: { db: cStore.db, runId: cand.result.runId, target: 'emu' },
        judge,
        cache: new SqliteGradeStore(cStore.db),
        limit: pLimit(2),
        bootstrap: { resamples: 500, confidence: 0.95, seed: 1 },
      };
      const first = await comparePairwise(options);
      expect(first).toMatchObject({ pairs: 3, wins: 0, undecided: 0, judgeCalls: 6, cacheHits: 0 });
      expect(first.losses).toBeGreaterThan(0);
      expect(first.lossRate!.low).toBeLessThanOrEqual(first.lossRate!.value);
      expect(first.citationValidity.delta).toBeLessThan(0);
      expect(first.scoreDelta!.pairs).toBe(2);
      const again = await comparePairwise(options);
      expect(again).toMatchObject({ judgeCalls: 0, cacheHits: 6, losses: first.losses, ties: first.ties });
      expect(judgeEmulator.counters()['llm.chat']).toBe(6);
    } finally {
      await judge.close();
      bStore.close();
      cStore.close();
    }
  });

  it('gives each rate an interval over questions: the repeats of one question are resampled together', async () => {
    // Two questions asked four times each; the judge prefers the candidate on one question and the baseline
    // on the other, telling the answers apart by the host their links name. Over pairs, 4 wins in 8 would
    // give an interval well inside (0, 1); over two questions it spans 0 to 1.
    const text = 'name: repeated\ndefaults: { api: legacy, timeout: 10m }\nquestions:\n  - id: retry\n    question: Where is RetryHandler implemented in undici?\n  - id: agent\n    question: How does undici\'s Agent keep connections alive per origin?\n';
    const sideOn = async (publicUrl: string) => {
      const e = await emulator({ ...OPTIONS, publicUrl }, CORPUS_SEARCH);
      const ran = await runSuite(await suite(text), [target({ name: 'emu', emulator: e })], { repeats: 4 });
      ran.close();
      return { store: openStore(ran.dbPath), runId: ran.result.runId };
    };
    const [base, cand] = await Promise.all([sideOn('https://base.example'), sideOn('https://cand.example')]);
    const judge = await startServer((req, res, body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url!.endsWith('/models')) return res.end(JSON.stringify({ data: [{ id: 'm' }] }));
      const prompt = (JSON.parse(body) as { messages: Array<{ content: string }> }).messages[0]!.content;
      const candidateIsA = prompt.slice(prompt.indexOf('<answer_a>'), prompt.indexOf('<answer_b>')).includes('cand.example');
      const preferCandidate = prompt.includes('RetryHandler');
      const winner = candidateIsA === preferCandidate ? 'A' : 'B';
      res.end(JSON.stringify({ choices: [{ message: { content: JSON.stringify({ winner, reasons: [] }) } }] }));
    });
    const client = new JudgeClient(resolveJudgeEndpoint(JudgeSchema.parse({}), undefined, { DSBENCH_JUDGE_ENDPOINT: judge.url }));
    try {
      const r = await comparePairwise({
        baseline: { db: base.store.db, runId: base.runId, target: 'emu' },
        candidate: { db: cand.store.db, runId: cand.runId, target: 'emu' },
        judge: client,
        cache: new SqliteGradeStore(cand.store.db),
        limit: pLimit(4),
        bootstrap: { resamples: 2000, confidence: 0.95, seed: 1 },
      });
      expect(r).toMatchObject({ pairs: 8, wins: 4, losses: 4, questions: 2 });
      // Two questions: an effective sample size near 0 once t on 1 degree of freedom is paid, so about 0 to 1.
      expect(r.winRate).toMatchObject({ value: 0.5, method: 'wilson, effective sample size' });
      expect(r.winRate!.low).toBeLessThan(0.01);
      expect(r.winRate!.high).toBeGreaterThan(0.99);
    } finally {
      await client.close();
      await judge.close();
      base.store.close();
      cand.store.close();
    }
  });

  it('tells the judge the rubric or reference answer of each turn, and the suite preamble', async () => {
    const loaded = await suite(SUITE.replace('judge: { concurrency: 2 }', 'judge: { concurrency: 2, preamble: "We value exact file paths." }'));
    const guide = suiteGuide(loaded.resolved);
    expect(guide('retry', 0).rubric).toContain('retry-handler.js');
    expect(guide('keepalive', 0)).toEqual({ rubric: undefined, reference: undefined });
    expect(guide('keepalive', 1).reference).toContain('keepAliveTimeout');
    expect(guide('gone', 0)).toEqual({});

    const base = await run(SUITE);
    const prompts: string[] = [];
    const judge = await startServer((req, res, body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url!.endsWith('/models')) return res.end(JSON.stringify({ data: [{ id: 'm' }] }));
      prompts.push((JSON.parse(body) as { messages: Array<{ content: string }> }).messages[0]!.content);
      res.end(JSON.stringify({ choices: [{ message: { content: '{"winner": "tie", "reasons": []}' } }] }));
    });
    const store = openStore(base.dbPath);
    const client = new JudgeClient(resolveJudgeEndpoint(JudgeSchema.parse({}), undefined, { DSBENCH_JUDGE_ENDPOINT: judge.url }));
    try {
      const side = { db: store.db, runId: base.result.runId, target: 'emu' };
      const r = await comparePairwise({
        baseline: side,
        candidate: side,
        judge: client,
        cache: new SqliteGradeStore(store.db),
        limit: pLimit(2),
        preamble: loaded.resolved.judge.preamble,
        guide,
        bootstrap: { resamples: 100, confidence: 0.95, seed: 1 },
      });
      expect(r).toMatchObject({ pairs: 3, ties: 3, judgeCalls: 6 });
      const of = (needle: string) => prompts.filter((p) => p.includes(needle));
      expect(prompts.every((p) => p.includes('We value exact file paths.'))).toBe(true);
      expect(of('<rubric>')).toHaveLength(2);
      expect(of('<rubric>').every((p) => p.includes('Where is RetryHandler implemented'))).toBe(true);
      expect(of('<reference>')).toHaveLength(2);
      expect(of('<reference>').every((p) => p.includes('Which option sets the idle timeout?'))).toBe(true);
    } finally {
      await client.close();
      await judge.close();
      store.close();
    }
  });
});
