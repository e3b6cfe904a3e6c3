// Chaos benchmark of restarts: `dsbench run` of 120 questions (40 with a follow-up) against the emulator,
// with 5% of requests answered 500 and 5% reset before the server acted on every operation, behind a proxy
// that delays the server's actions (writes reach it 0-400 ms late). The run is SIGKILLed at random moments
// and resumed, often by two processes racing each other, at least 30 times, then resumed to its end.
// Checked on the emulator's records and in the database: questions asked twice, results lost, integrity.
//
//   node --import tsx bench/restarts/index.ts [--kills 30] [--seed 1]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { startEmulator } from '../../src/emulator/index.js';
import { createRng } from '../../src/emulator/random.js';
import { startFaultProxy } from '../../test/helpers/fault-proxy.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const KILLS = arg('kills', 30);
const SEED = arg('seed', 1);
const QUESTIONS = Array.from({ length: 120 }, (_, i) => ({
  id: `q${String(i).padStart(3, '0')}`,
  text: `Where is function${i} of module${i % 7} implemented?`,
  followup: i % 3 === 0 ? `Which callers use function${i}?` : undefined,
}));
const PLANNED_TURNS = QUESTIONS.reduce((n, q) => n + (q.followup ? 2 : 1), 0);

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function dsbench(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<Exit>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
  return { child, exited };
}

function status(db: string): unknown {
  const conn = new Database(db, { readonly: true });
  try {
    return conn.prepare('SELECT status FROM runs WHERE id = 1').pluck().get();
  } finally {
    conn.close();
  }
}

/** Waits until process `pid` holds the run's lease (start-up takes seconds on a loaded machine); gives up after 60 s. */
async function holding(db: string, pid: number | undefined): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    try {
      const conn = new Database(db, { readonly: true, fileMustExist: true });
      const holder = conn.prepare('SELECT pid FROM run_leases WHERE run_id = 1').pluck().get();
      conn.close();
      if (holder === pid) return;
    } catch {
      // not created yet, or busy
    }
    await sleep(50);
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dsbench-restarts-'));
  const random = createRng(SEED);
  // Answers take 2-10 s of real time (30 s median at time scale 0.15): the run needs about 90 s of running,
  // so at least 30 kills land before it ends.
  const e = await startEmulator({ port: 0, seed: SEED, timeScale: 0.15, medianMs: 30_000, sigma: 0.5, faults: { rate500: 0.05, rateReset: 0.05 } });
  const proxy = await startFaultProxy(e.url, (req) => (req.method === 'GET' || req.operation.startsWith('versioned.Get') || req.operation.startsWith('versioned.List') ? { kind: 'forward' } : { kind: 'forward', delayMs: Math.floor(random.next() * 400) }));
  const suiteFile = path.join(dir, 'suite.yaml');
  writeFileSync(
    suiteFile,
    `name: restarts\ndefaults: { concurrency: 8, poll: { strategy: fixed, interval: 100ms } }\nquestions:\n${QUESTIONS.map((q) => `  - id: ${q.id}\n    question: "${q.text}"\n${q.followup ? `    followups: ["${q.followup}"]\n` : ''}`).join('')}`,
  );
  const db = path.join(dir, 'restarts.db');
  const env = { SRC_ENDPOINT: proxy.url, SRC_ACCESS_TOKEN: e.adminToken };
  const common = ['--db', db, '--reporter', 'lines', '--request-timeout', '2s', '--retry-base-delay', '50ms'];
  const started = performance.now();
  const exits: Record<string, number> = {};
  let kills = 0;
  let races = 0;

  const first = dsbench(['run', suiteFile, ...common], env);
  await holding(db, first.child.pid);
  await sleep(random.next() * 2500);
  first.child.kill('SIGKILL');
  await first.exited;
  kills++;
  while (kills < KILLS && status(db) !== 'completed') {
    const racing = random.next() < 0.5;
    const runners = [dsbench(['run', '--resume', '1', ...common], env)];
    if (racing) {
      races++;
      await sleep(random.next() * 300);
      runners.push(dsbench(['run', '--resume', '1', ...common], env));
    }
    // Killed 0-2.5 s after one of them took the lease: mid-send, mid-poll, mid-lookup.
    await Promise.race([holding(db, runners[0]?.child.pid), ...(runners[1] ? [holding(db, runners[1].child.pid)] : [])]);
    await sleep(random.next() * 2500);
    for (const r of runners) r.child.kill('SIGKILL');
    for (const r of runners) {
      const exit = await r.exited;
      const key = exit.signal ?? `exit ${exit.code}`;
      exits[key] = (exits[key] ?? 0) + 1;
      if (exit.code !== null && exit.code !== 7) process.stderr.write(exit.stderr.slice(-1000));
    }
    kills++;
  }
  let final: Exit | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    final = await dsbench(['run', '--resume', '1', ...common], env).exited;
    if (final.code === 0 || final.code === 1) break;
    process.stderr.write(final.stderr.slice(-2000));
  }
  const wallS = (performance.now() - started) / 1000;

  // The emulator: each planned turn asked once, each conversation one suite question with its follow-up.
  const records = e.questionRecords();
  const byText = new Map<string, number>();
  for (const r of records) byText.set(r.text, (byText.get(r.text) ?? 0) + 1);
  const conn = new Database(db, { readonly: true });
  // A question dsbench itself cancelled on an interruption is asked again by the resume, its attempt kept:
  // asked again after our own cancel, its own category, not asked twice (none here: every stop is a SIGKILL).
  const reasked = new Map<string, number>();
  for (const texts of conn.prepare('SELECT texts_json FROM requeued_attempts').pluck().all() as string[]) {
    for (const text of JSON.parse(texts) as string[]) reasked.set(text, (reasked.get(text) ?? 0) + 1);
  }
  const askedAgainAfterOwnCancel = [...reasked.values()].reduce((n, c) => n + c, 0);
  const askedTwice = [...byText].reduce((n, [text, c]) => n + Math.max(0, c - 1 - (reasked.get(text) ?? 0)), 0);
  const items = conn.prepare('SELECT status, outcome, conversation_ref FROM items').all() as Array<{ status: string; outcome: string | null; conversation_ref: string | null }>;
  const turns = conn.prepare("SELECT count(*) FROM turns WHERE state = 'completed'").pluck().get() as number;
  const lost = items.filter((i) => i.status !== 'done' || i.outcome !== 'completed').length;
  const integrity = conn.pragma('integrity_check', { simple: true });
  const runStatus = conn.prepare('SELECT status FROM runs WHERE id = 1').pluck().get();
  const distinctRefs = new Set(items.map((i) => i.conversation_ref)).size;
  conn.close();
  const counters = e.counters();
  const faults = e.faultCounters();
  const report = {
    items: QUESTIONS.length,
    plannedTurns: PLANNED_TURNS,
    kills,
    // A resume may finish the run before the last planned kill: fewer kills then, not a failure.
    finishedBeforeLastKill: kills < KILLS,
    racingResumes: races,
    exitsOfKilledOrRefused: exits,
    finalExit: final?.code,
    runStatus,
    askedOnServer: records.length,
    askedTwice,
    askedAgainAfterOwnCancel,
    lost,
    completedTurns: turns,
    distinctConversations: distinctRefs,
    integrity,
    faultsInjected: Object.values(faults).reduce((n, c) => n + c, 0),
    proxyDelayedWrites: proxy.counts.forward,
    requests: Object.values(counters).reduce((n, c) => n + c, 0),
    wallS: Math.round(wallS),
    load: loadavg().map((l) => l.toFixed(1)).join(' '),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  await proxy.close();
  await e.stop();
  rmSync(dir, { recursive: true, force: true });
  if (askedTwice > 0 || lost > 0 || integrity !== 'ok' || records.length !== PLANNED_TURNS + askedAgainAfterOwnCancel) process.exitCode = 1;
}

await main();
