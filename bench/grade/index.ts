import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectionFor } from '../../src/config/credentials.js';
import { loadSuite } from '../../src/config/load-suite.js';
import { startEmulator } from '../../src/emulator/index.js';
import { JudgeClient, resolveJudgeEndpoint } from '../../src/grade/judge-client.js';
import { gradePrompt } from '../../src/grade/prompt.js';
import { RunGrading } from '../../src/grade/run-grading.js';
import { GradeVerdictSchema, parseVerdict } from '../../src/grade/judge-verdict.js';
import { executeRun } from '../../src/runner/run.js';
import { openStore, SqliteGradeStore } from '../../src/store/index.js';

// Grading on the emulator: added wall time per question when items are graded as they end (paired
// alternating runs of the smoke suite with judge.during run / never), grading throughput of a recorded
// run, the cache hit rate of a re-grade, and the judge's agreement with itself over repeated calls.
// The judge is the emulator's own unless DSBENCH_JUDGE_ENDPOINT (+ _TOKEN, _MODEL) names another.
// Usage: node --import tsx bench/grade/index.ts [--quick]

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 1 : 5;
const SELF_AGREEMENT_CALLS = quick ? 3 : 5;
const TIME_SCALE = 0.02;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const range = (xs: number[], digits = 1) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-bench-grade-'));
  // A fresh emulator per run (same seed, same answers): its search cache must not make the second run of a pair faster.
  const fresh = () => startEmulator({ port: 0, timeScale: TIME_SCALE, agent: { badCitationRate: 0.1 } });
  let emulator = await fresh();
  let connection = connectionFor(emulator.url, emulator.adminToken, {});
  let targets = [{ name: 'emulator', connection, emulated: true, timeScale: TIME_SCALE }];
  const added: number[] = [];
  const throughput: number[] = [];
  const callsPerS: number[] = [];
  const hitRates: number[] = [];
  const regradeCalls: number[] = [];
  let questions = 0;
  let judgeCallsPerRun = 0;
  let citationFetches = 0;
  let lastDb = '';
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const walls: Record<'run' | 'never', number> = { run: 0, never: 0 };
      // Alternate which goes first, so a trend in the machine's load does not favour one.
      for (const during of round % 2 === 0 ? (['never', 'run'] as const) : (['run', 'never'] as const)) {
        await emulator.stop();
        emulator = await fresh();
        connection = connectionFor(emulator.url, emulator.adminToken, {});
        targets = [{ name: 'emulator', connection, emulated: true, timeScale: TIME_SCALE }];
        const loaded = await loadSuite('suites/smoke.yaml');
        loaded.resolved.judge.during = during;
        questions = loaded.resolved.questions.length;
        const db = path.join(dir, `${round}-${during}.db`);
        const store = openStore(db);
        try {
          // Graded as the CLI grades a run: the grade module's RunGrading is its live grader.
          const grader = during === 'run' ? RunGrading.create({ suite: loaded.resolved, store: new SqliteGradeStore(store.db), targets, env: process.env }) : undefined;
          const result = await executeRun({
            suite: loaded, targets, recorder: store.recorder, grader, observers: [],
            onQuota: 'stop', maxQuotaWaitMs: 1000, cleanup: false, stop: new AbortController().signal, abort: new AbortController().signal,
          }).finally(() => grader?.close());
          walls[during] = result.wallMs;
          if (during === 'never') {
            // Throughput: grading the recorded run from scratch, then again (all from the cache).
            const grade = async () => {
              const grading = RunGrading.create({ suite: loaded.resolved, store: new SqliteGradeStore(store.db), targets, env: process.env })!;
              const state = store.recorder.loadRun(result.runId)!;
              const started = performance.now();
              await Promise.all(
                state.items
                  .filter((i) => i.key.split('/')[1] === 'question')
                  .map((i) => {
                    const q = loaded.resolved.questions.find((x) => x.id === i.key.split('/')[2])!;
                    return grading.grade(result.runId, i.key, 'emulator', q, i.turns.map((t) => ({ turn: t.turn, state: t.state, text: t.text ?? '', answer: t.answer, sources: t.sources })));
                  }),
              );
              const seconds = (performance.now() - started) / 1000;
              await grading.close();
              return { seconds, totals: { ...grading.totals }, fetches: grading.citationFetches };
            };
            const first = await grade();
            throughput.push(first.totals.items / first.seconds);
            callsPerS.push(first.totals.judgeCalls / first.seconds);
            judgeCallsPerRun = first.totals.judgeCalls;
            citationFetches = first.fetches;
            const again = await grade();
            hitRates.push((100 * again.totals.cacheHits) / (again.totals.cacheHits + again.totals.judgeCalls));
            regradeCalls.push(again.totals.judgeCalls);
            lastDb = db;
          }
        } finally {
          store.close();
        }
      }
      added.push((walls.run - walls.never) / questions);
      process.stderr.write(`round ${round + 1}/${ROUNDS}: with grading ${walls.run} ms, without ${walls.never} ms\n`);
    }

    // Self-agreement: the same prompts asked again, bypassing the cache.
    const loaded = await loadSuite('suites/smoke.yaml');
    const judge = new JudgeClient(resolveJudgeEndpoint(loaded.resolved.judge, connection, process.env));
    const store = openStore(lastDb);
    let prompts = 0;
    let agreeing = 0;
    try {
      const rows = store.db.prepare(`SELECT t.text, t.answer, i.suite_item_id FROM turns t JOIN items i ON i.run_id = t.run_id AND i.key = t.item_key WHERE t.state = 'completed'`).all() as Array<{ text: string; answer: string; suite_item_id: string }>;
      for (const row of rows) {
        const q = loaded.resolved.questions.find((x) => x.id === row.suite_item_id);
        if (!q || (q.expect.rubric === undefined && q.expect.reference === undefined)) continue;
        const prompt = gradePrompt({ question: row.text, answer: row.answer, rubric: q.expect.rubric, reference: q.expect.reference, preamble: loaded.resolved.judge.preamble });
        const verdicts = new Set<string>();
        for (let k = 0; k < SELF_AGREEMENT_CALLS; k++) {
          const parsed = parseVerdict(GradeVerdictSchema, (await judge.complete(prompt)).content);
          verdicts.add(parsed.ok ? `${parsed.verdict.score}/${parsed.verdict.pass}` : 'unparseable');
        }
        prompts++;
        if (verdicts.size === 1) agreeing++;
      }
    } finally {
      store.close();
      await judge.close();
    }

    const lines = [
      `## Grading benchmarks (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; shared machine)`,
      '',
      `Smoke suite (${questions} questions, ${judgeCallsPerRun} graded by the judge, every answer's citations checked: ${citationFetches} raw file fetches) on the embedded emulator at time scale ${TIME_SCALE}, ${process.env.DSBENCH_JUDGE_ENDPOINT ? 'external judge' : "the emulator's judge"}; ${ROUNDS} paired rounds, medians (min–max).`,
      '',
      '| figure | value |',
      '|---|---:|',
      `| added wall time per question, grading as items end (ms) | ${range(added)} |`,
      `| grading throughput of a recorded run (conversations/s) | ${range(throughput)} |`,
      `| judge calls per second while grading | ${range(callsPerS)} |`,
      `| re-grade cache hit rate (%) | ${range(hitRates)} |`,
      `| judge calls of a re-grade | ${range(regradeCalls, 0)} |`,
      `| judge self-agreement (${SELF_AGREEMENT_CALLS} calls per prompt, identical verdicts) | ${agreeing}/${prompts} prompts |`,
      '',
    ];
    const text = lines.join('\n');
    process.stdout.write(`${text}\n`);
    if (!quick) writeFileSync(new URL('./RESULTS.md', import.meta.url), `${text}\n`);
  } finally {
    await emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
