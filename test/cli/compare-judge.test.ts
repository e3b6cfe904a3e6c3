// `compare --judge --max-loss-rate`: a gate, so a statistical test. It fails when the loss rate's interval
// over questions lies above the limit, not when a few pairs were lost to noise.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCompare, type CompareArgs } from '../../src/cli/compare.js';
import type { ItemGrading } from '../../src/model/grading.js';
import { openStore, SqliteGradeStore } from '../../src/store/index.js';
import { completed, question, recordRun, tempDir } from '../report/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const QUESTIONS = ['q0', 'q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7'];
const TARGET = [{ name: 'prod', url: 'https://sg.example.com', api: 'legacy' as const, emulated: false }];

/**
 * Two runs of the same questions; each answer names its run, so the judge can tell them apart. `scores`:
 * each question's judge score in the baseline and the candidate, graded as `dsbench grade` records them.
 */
function twoRuns(scores?: (id: string) => [number, number]): string {
  const db = path.join(tempDir(), 'runs.db');
  const store = openStore(db);
  const grades = new SqliteGradeStore(store.db);
  for (const [side, at] of [['baseline', 0], ['candidate', 1]] as const) {
    const scripts = QUESTIONS.map((id) => ({ item: question(id), turns: [completed({ answer: `The ${side} answer to ${id}.` })] }));
    const runId = recordRun(store, scripts, { targets: TARGET, info: { label: side } });
    for (const id of scores ? QUESTIONS : []) grades.recordGrading(runId, `prod/question/${id}/0`, graded(scores!(id)[at]));
  }
  store.close();
  return db;
}

/** A question's grade: its judge score, and one checked citation that resolves when the score is 0.5 or more. */
function graded(score: number): ItemGrading {
  const grade = { turn: 0, spec: 'question' as const, status: 'graded' as const, score, minScore: 0, passed: true, model: 'm', promptVersion: 'grade-v1', promptHash: 'p', inputsHash: `i-${score}`, cached: false, gradedAt: '2025-03-01T00:00:06.000Z', reasons: [] };
  const valid = score >= 0.5;
  const citation = { origin: 'answer' as const, kind: 'file' as const, repository: 'github.com/acme/app', path: 'src/retry.ts', startLine: valid ? 3 : 900, link: 'https://sg.example.com/github.com/acme/app/-/blob/src/retry.ts', status: valid ? ('valid' as const) : ('invalid' as const), reason: valid ? 'line 3 exists' : 'line 900 is past the end' };
  return { grades: [grade], citations: [{ turn: 0, checkedAt: '2025-03-01T00:00:06.000Z', citations: [citation] }], expectations: [] };
}

/** A judge that prefers the baseline's answer to the questions in `lost`, and calls the rest a tie. */
async function judgePreferringBaselineOn(lost: ReadonlySet<string>): Promise<string> {
  const server = await startServer((req, res, body) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url!.endsWith('/models')) return res.end(JSON.stringify({ data: [{ id: 'm' }] }));
    const prompt = (JSON.parse(body) as { messages: Array<{ content: string }> }).messages[0]!.content;
    const id = /answer to (q\d+)/.exec(prompt)![1]!;
    const baselineIsA = prompt.slice(prompt.indexOf('<answer_a>'), prompt.indexOf('<answer_b>')).includes('baseline');
    const winner = lost.has(id) ? (baselineIsA ? 'A' : 'B') : 'tie';
    res.end(JSON.stringify({ choices: [{ message: { content: JSON.stringify({ winner, reasons: [] }) } }] }));
  });
  servers.push(server);
  return server.url;
}

async function compare(lost: string[], gates: Pick<CompareArgs, 'maxLossRate' | 'maxScoreDrop' | 'maxCitationValidityDrop'>, scores?: (id: string) => [number, number]) {
  const db = twoRuns(scores);
  const judge = await judgePreferringBaselineOn(new Set(lost));
  let out = '';
  const code = await runCompare(
    { baseline: 'baseline', candidate: 'candidate', db, judge: true, ...gates, out: path.join(tempDir(), 'out') },
    { write: (text: string) => (out += text) },
    { DSBENCH_JUDGE_ENDPOINT: judge },
  );
  return { code, out };
}

describe('compare --judge --max-loss-rate', () => {
  it('fails when the candidate loses on most questions: the whole interval is above the limit', async () => {
    const { code, out } = await compare(['q0', 'q1', 'q2', 'q3', 'q4', 'q5', 'q6'], { maxLossRate: '10%' });
    expect(out).toContain('candidate 0 wins, 7 losses, 1 ties');
    expect(out).toMatch(/GATE FAILED: pairwise loss rate 87\.5% \[\d+\.\d%, \d+\.\d%\] is above 10\.0% \(its whole 95% interval over 8 questions\)/);
    expect(code).toBe(1);
  });

  it('passes when one question of eight was lost: 12.5% is over the limit, but noise explains it', async () => {
    const { code, out } = await compare(['q3'], { maxLossRate: '10%' });
    expect(out).toContain('candidate 0 wins, 1 losses, 7 ties');
    expect(out).toMatch(/loss 12\.5% \[1\.5%, \d+\.\d%\]/);
    expect(out).toContain('(95% intervals over 8 questions: wilson, effective sample size)');
    expect(out).not.toContain('GATE FAILED');
    expect(code).toBe(0);
  });
});

describe('compare --judge --max-score-drop', () => {
  it('fails when the judge scores drop on every question: beyond noise and beyond the limit', async () => {
    const { code, out } = await compare([], { maxScoreDrop: 0.1 }, () => [0.9, 0.5]);
    expect(out).toMatch(/GATE FAILED: mean judge score dropped by 0\.400 \(more than 0\.1; p = 0\.00\d+ over 8 questions\)/);
    expect(code).toBe(1);
  });

  it('passes when one question of eight dropped: the mean drop is over the limit, but one question is noise', async () => {
    const { code, out } = await compare([], { maxScoreDrop: 0.05 }, (id) => [0.9, id === 'q3' ? 0.1 : 0.9]);
    expect(out).toContain('score delta: -0.100 over 8 graded turns');
    expect(out).not.toContain('GATE FAILED');
    expect(code).toBe(0);
  });
});

describe('compare --judge --max-citation-validity-drop', () => {
  it('fails when every question\'s citations stopped resolving, passes when one question\'s did', async () => {
    const all = await compare([], { maxCitationValidityDrop: '10%' }, () => [0.9, 0.2]);
    expect(all.out).toMatch(/GATE FAILED: citation validity dropped by 100\.0 points \(more than 10\.0; p = 0\.00\d+ over 8 questions\)/);
    expect(all.code).toBe(1);
    const one = await compare([], { maxCitationValidityDrop: '10%' }, (id) => [0.9, id === 'q3' ? 0.2 : 0.9]);
    expect(one.out).toContain('citation validity: 100.0% -> 87.5%');
    expect(one.out).not.toContain('GATE FAILED');
    expect(one.code).toBe(0);
  });
});
