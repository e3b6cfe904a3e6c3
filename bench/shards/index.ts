// Shards on this machine as engines run them: N real `dsbench run --shard auto` processes against one
// standalone emulator, each with its engine's environment (a Kubernetes Indexed Job's JOB_COMPLETION_INDEX,
// GitLab's CI_NODE_INDEX/CI_NODE_TOTAL) and its own database (its pod's disk), and the failures engines
// bring: a pod restarted with its disk (--resume-or-start resumes), a pod replaced without it (a new disk:
// the shard starts over), a shard killed mid-run and never run again. Each scenario has an emulator of its
// own; then `dsbench merge`, and the merged run is compared with an unsharded run of the same suite.
//
//   npm run build && node --import tsx bench/shards/index.ts [--shards 3] [--questions 18] [--seed 1]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'dist/cli/main.js');
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SHARDS = arg('shards', 3);
const QUESTIONS = arg('questions', 18);
const SEED = arg('seed', 1);
const dir = mkdtempSync(path.join(tmpdir(), 'dsbench-shards-'));
const suiteFile = path.join(dir, 'suite.yaml');
writeFileSync(
  suiteFile,
  `name: shards\ndefaults: { api: legacy, concurrency: 2, poll: { strategy: fixed, interval: 100ms } }\nquestions:\n${Array.from(
    { length: QUESTIONS },
    (_, i) => `  - id: q${String(i).padStart(2, '0')}\n    question: "Where is function${i} of module${i % 5} implemented?"\n`,
  ).join('')}`,
);

interface Proc {
  kill(): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function dsbench(args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return { kill: () => child.kill('SIGKILL'), exited: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr }))) };
}

async function ok(p: Proc, what: string): Promise<void> {
  const exit = await p.exited;
  if (exit.code !== 0 && exit.code !== 1) throw new Error(`${what}: exit ${exit.code ?? exit.signal}\n${exit.stderr.slice(-2000)}`);
}

function query<T>(db: string, sql: string, ...params: unknown[]): T | undefined {
  try {
    const conn = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return conn.prepare(sql).pluck().get(...params) as T;
    } finally {
      conn.close();
    }
  } catch {
    return undefined; // not created yet, or busy
  }
}

/** Kills a shard once it has finished `done` items: mid-run, with questions in flight. */
async function killAfter(p: Proc, db: string, done: number): Promise<number> {
  const deadline = performance.now() + 120_000;
  let seen = 0;
  while (performance.now() < deadline) {
    seen = query<number>(db, "SELECT count(*) FROM items WHERE status = 'done'") ?? 0;
    if (seen >= done) break;
    await sleep(50);
  }
  p.kill();
  await p.exited;
  return seen;
}

const emulatorFor = () => startEmulator({ port: 0, seed: SEED, timeScale: 0.05, medianMs: 30_000, sigma: 0.5 });

/** Credits the emulator charged its one user, read from a finished conversation's quota usage. */
async function chargedCredits(e: RunningEmulator): Promise<number | null> {
  const done = e.questionRecords().find((r) => r.outcome === 'completed');
  if (!done) return null;
  const reply = await fetch(`${e.url}/.api/deepsearch/v1/${done.conversationId}`, { headers: { authorization: `token ${e.adminToken}`, 'x-requested-with': 'dsbench-bench' } });
  const body = (await reply.json()) as { quota_usage?: { total_quota: number } };
  return body.quota_usage?.total_quota ?? null;
}

function askedTwice(e: RunningEmulator): number {
  return [...twiceByText(e).values()].reduce((n, c) => n + c, 0);
}

/** Each question text asked more than once, with how many times more. */
function twiceByText(e: RunningEmulator): Map<string, number> {
  const byText = new Map<string, number>();
  for (const r of e.questionRecords()) byText.set(r.text, (byText.get(r.text) ?? 0) + 1);
  return new Map([...byText].filter(([, c]) => c > 1).map(([t, c]) => [t, c - 1]));
}

/** Questions asked twice, by the fate of the shard whose disk holds them at the end. */
function twiceByFate(e: RunningEmulator, disks: ReadonlyMap<string, Fate>): Record<string, number> {
  const by: Record<string, number> = {};
  for (const [text, extra] of twiceByText(e)) {
    const owner = [...disks].find(([db]) => (query<number>(db, 'SELECT count(*) FROM turns WHERE text = ?', text) ?? 0) > 0);
    const fate = owner?.[1] ?? 'unknown';
    by[fate] = (by[fate] ?? 0) + extra;
  }
  return by;
}

interface ItemView {
  key: string;
  position: number;
  status: string;
  outcome: string | null;
  texts: string;
  answers: string;
}

function items(db: string, runId: number): ItemView[] {
  const conn = new Database(db, { readonly: true });
  try {
    return conn
      .prepare(
        `SELECT i.key, i.position, i.status, i.outcome,
          (SELECT group_concat(text, '|') FROM (SELECT text FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key ORDER BY turn)) AS texts,
          (SELECT group_concat(coalesce(answer, ''), '|') FROM (SELECT answer FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key ORDER BY turn)) AS answers
        FROM items i WHERE run_id = ? ORDER BY position`,
      )
      .all(runId) as ItemView[];
  } finally {
    conn.close();
  }
}

/** The merged run against the unsharded one, item for item: plan place, status, outcome, questions asked and answers. */
function sameAsUnsharded(base: ItemView[], merged: ItemView[]) {
  const byKey = new Map(merged.map((m) => [m.key, m]));
  const differ = base.filter((b) => {
    const m = byKey.get(b.key);
    return !m || m.position !== b.position || m.status !== b.status || m.outcome !== b.outcome || m.texts !== b.texts || m.answers !== b.answers;
  });
  return {
    items: `${base.length - differ.length}/${base.length}`,
    equal: differ.length === 0 && merged.length === base.length,
    differing: differ.map((d) => `${d.key} (${byKey.get(d.key)?.status ?? 'missing'})`).slice(0, 10),
  };
}

function mergedRun(into: string, disks: string[], partial: boolean) {
  return dsbench(['merge', ...disks, '--into', into, ...(partial ? ['--allow-partial'] : [])], {});
}

async function unsharded() {
  const e = await emulatorFor();
  const db = path.join(dir, 'unsharded.db');
  const started = performance.now();
  await ok(dsbench(['run', suiteFile, '--db', db, '--label', 'nightly', '--quiet'], { SRC_ENDPOINT: e.url, SRC_ACCESS_TOKEN: e.adminToken }), 'unsharded run');
  const result = { processes: 1, askedOnServer: e.questionRecords().length, askedTwice: askedTwice(e), creditsCharged: await chargedCredits(e), creditsRecorded: query<number>(db, 'SELECT sum(credits) FROM turns'), wallS: Math.round((performance.now() - started) / 1000) };
  await e.stop();
  return { db, result };
}

type Engine = 'kubernetes' | 'gitlab';
const engineEnv = (engine: Engine, i: number): Record<string, string> =>
  engine === 'kubernetes' ? { JOB_COMPLETION_INDEX: String(i), JOB_COMPLETIONS: String(SHARDS) } : { CI_NODE_INDEX: String(i + 1), CI_NODE_TOTAL: String(SHARDS) };

/**
 * One engine's night: every shard started at once; `fate` says what happens to shard i: `runs` to its end,
 * `restarted` (killed mid-run, started again on the same disk), `replaced` (killed, started on a new disk),
 * `killed` (killed, never started again).
 */
type Fate = 'runs' | 'ends-then-restarted' | 'restarted' | 'replaced' | 'killed';

async function night(name: string, engine: Engine, fates: Fate[], base: ItemView[]) {
  const e = await emulatorFor();
  const env = (i: number) => ({ SRC_ENDPOINT: e.url, SRC_ACCESS_TOKEN: e.adminToken, ...engineEnv(engine, i) });
  const started = performance.now();
  const disk = (i: number, generation: number) => {
    const d = path.join(dir, `${name}-pod${i}-disk${generation}`);
    mkdirSync(d, { recursive: true });
    return path.join(d, 'shard.db');
  };
  const args = (db: string) => ['run', suiteFile, '--shard', 'auto', '--group', name, '--resume-or-start', '--db', db, '--label', 'nightly', '--quiet'];
  let processes = 0;
  const finalDisks: string[] = [];
  const fateOf = new Map<string, Fate>();
  const lostDisks: string[] = [];
  const killedAfter: Record<number, number> = {};
  const afterEnd: Record<number, string> = {};
  await Promise.all(
    fates.map(async (fate, i) => {
      const first = disk(i, 0);
      processes++;
      const p = dsbench(args(first), env(i));
      if (fate === 'runs' || fate === 'ends-then-restarted') {
        await ok(p, `${engine} shard ${i}`);
        finalDisks.push(first);
        if (fate === 'runs') return;
        // The container restarted after its shard ended (a later step of the pod failed): same disk, same command.
        processes++;
        const again = await dsbench(args(first), env(i)).exited;
        afterEnd[i] = `exit ${again.code}: ${again.stderr.trim().split('\n').pop() ?? ''}`;
        return;
      }
      killedAfter[i] = await killAfter(p, first, 1);
      if (fate === 'killed') return finalDisks.push(first);
      if (query<string>(first, 'SELECT status FROM runs WHERE id = 1') === 'completed') throw new Error(`${name}: shard ${i} ended before it was killed; give it more --questions`);
      const again = fate === 'restarted' ? first : disk(i, 1);
      if (fate === 'replaced') lostDisks.push(first);
      processes++;
      await ok(dsbench(args(again), env(i)), `${engine} shard ${i} ${fate}`);
      finalDisks.push(again);
    }),
  );
  for (const db of finalDisks) fateOf.set(db, fates[Number(/pod(\d+)/.exec(db)?.[1])]!);
  const into = path.join(dir, `${name}-merged.db`);
  const partial = fates.includes('killed');
  const merge = await mergedRun(into, finalDisks, partial).exited;
  const status = query<string>(into, 'SELECT status FROM runs ORDER BY id DESC LIMIT 1');
  const runId = query<number>(into, 'SELECT max(id) FROM runs') ?? 1;
  const creditsOnLostDisks = lostDisks.reduce((n, db) => n + (query<number>(db, 'SELECT coalesce(sum(credits), 0) FROM turns') ?? 0), 0);
  const result = {
    scenario: name,
    engine,
    fates: fates.map((f, i) => `${i}: ${f}${killedAfter[i] !== undefined ? ` (killed after ${killedAfter[i]} items done)` : ''}${afterEnd[i] !== undefined ? ` (restart after its end: ${afterEnd[i]})` : ''}`),
    processes,
    askedOnServer: e.questionRecords().length,
    askedTwice: askedTwice(e),
    askedTwiceByFate: twiceByFate(e, fateOf),
    creditsCharged: await chargedCredits(e),
    creditsRecordedMerged: query<number>(into, 'SELECT sum(credits) FROM turns'),
    creditsOnLostDisks,
    mergeExit: merge.code,
    mergedStatus: status,
    sameAsUnsharded: sameAsUnsharded(base, items(into, runId)),
    wallS: Math.round((performance.now() - started) / 1000),
  };
  await e.stop();
  return result;
}

const loadBefore = loadavg().map((l) => l.toFixed(1)).join(' ');
const base = await unsharded();
const baseItems = items(base.db, 1);
const worst: Fate[] = SHARDS >= 3 ? ['ends-then-restarted', 'restarted', 'replaced'] : ['restarted', 'replaced'];
const scenarios = [
  await night('k8s-clean', 'kubernetes', Array.from({ length: SHARDS }, () => 'runs' as const), baseItems),
  await night('k8s-pod-failures', 'kubernetes', Array.from({ length: SHARDS }, (_, i) => worst[i % worst.length]!), baseItems),
  await night('gitlab-shard-killed', 'gitlab', Array.from({ length: SHARDS }, (_, i): Fate => (i === SHARDS - 1 ? 'killed' : 'runs')), baseItems),
];
process.stdout.write(
  `${JSON.stringify({ seed: SEED, shards: SHARDS, questions: QUESTIONS, unsharded: base.result, scenarios, load: { before: loadBefore, after: loadavg().map((l) => l.toFixed(1)).join(' ') } }, null, 2)}\n`,
);
rmSync(dir, { recursive: true, force: true });
