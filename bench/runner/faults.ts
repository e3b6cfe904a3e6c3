// Wall time and CPU of a whole `dsbench run` under 10% transport faults (5% HTTP 503, 5% connection
// resets before the server acts, on every request) against the same run without faults: paired rounds on
// fresh emulators in another process (answering at once), the order alternating, ratios within a round.
// Also counts what a fault must never cost: items not completed (lost), conversations created beyond
// one per item (asked twice; and how many of them dsbench's own end-of-run check found), and items
// following another item's conversation (their own never asked); and how long the faulty run went on
// after its last item started (landing windows of creates lost near the end, the end-of-run check), and
// the ratio up to that start (what throughput under faults sets).
// Usage: node --import tsx bench/runner/faults.ts [--quick] [--rounds N] [--questions N] [--request-timeout 2s]
//   [--retry-base-delay D] (given to both runs of a round: what the retry backoff costs under faults)
//   [--faults 503|reset] (only that half of the mix: what each kind of fault costs on its own)
import os from 'node:os';
import Database from 'better-sqlite3';
import path from 'node:path';
import { transpile } from '../lib/transpile.js';
import { benchDir, conversationsOn, measure, spread, startEmulator, writeSuite, type Measured } from './processes.js';

const quick = process.argv.includes('--quick');
const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const QUESTIONS = Number(arg('--questions') ?? (quick ? 2_000 : 20_000));
const ROUNDS = Number(arg('--rounds') ?? (quick ? 2 : 3));
// A create whose outcome is unknown (reset after it was sent) and not found is sent again only once its
// request could no longer land: after the request timeout. It is the floor of a lost create's cost.
const REQUEST_TIMEOUT = arg('--request-timeout') ?? '2s';
const RETRY_BASE_DELAY = arg('--retry-base-delay');
const CONCURRENCY = 200;
const KINDS = {
  both: { flags: ['--fault-rate-503', '0.05', '--fault-rate-reset', '0.05'], said: '5% HTTP 503 and 5% connection resets before the server acts' },
  // Not acted on, provably: retried after the backoff, no landing window, no lookup.
  '503': { flags: ['--fault-rate-503', '0.05'], said: '5% HTTP 503 only' },
  // A create's outcome unknown: looked for, and asked again only once its landing window passed.
  reset: { flags: ['--fault-rate-reset', '0.05'], said: '5% connection resets before the server acts only' },
} as const;
const kind = arg('--faults') ?? 'both';
if (!Object.hasOwn(KINDS, kind)) throw new Error(`--faults must be one of ${Object.keys(KINDS).join(', ')}, not "${kind}"`);
const FAULTS = KINDS[kind as keyof typeof KINDS];

const [main] = transpile('dsbench-faults-bench', ['src/cli/main.ts']) as [string];

interface Outcome {
  run: Measured;
  completed: number;
  conversations: number;
  /** Items whose recorded conversation another item of the run also recorded. */
  shared: number;
  /** What dsbench itself found at the run's end: conversations of its questions that no item owns. */
  unowned: number;
  /**
   * Seconds from the start of the run's last item to the run's end: the waits no item can hide (a create
   * lost near the end waits out its landing window, a request timeout, before it is asked again, and again
   * if that send is lost too), then the end-of-run check.
   */
  tailS: number;
  /** Seconds from the run's start to the start of its last item: the part that throughput sets. */
  startsS: number;
}

async function once(faulty: boolean, round: number): Promise<Outcome> {
  const emulator = await startEmulator(main, faulty ? [...FAULTS.flags] : []);
  try {
    const db = path.join(benchDir, `faults-${round}-${faulty}.db`);
    const run = await measure([main, 'run', writeSuite(QUESTIONS, { concurrency: CONCURRENCY }), '--db', db, '--json', '--request-timeout', REQUEST_TIMEOUT, ...(RETRY_BASE_DELAY ? ['--retry-base-delay', RETRY_BASE_DELAY] : [])], {
      SRC_ENDPOINT: emulator.url,
      SRC_ACCESS_TOKEN: emulator.token,
    });
    const result = JSON.parse(run.stdout) as { targets: Record<string, { counts: Record<string, number>; unownedConversations: number }> };
    const completed = Object.values(result.targets).reduce((sum, t) => sum + (t.counts.completed ?? 0), 0);
    const store = new Database(db, { readonly: true });
    const shared = store.prepare('SELECT COALESCE(SUM(n), 0) FROM (SELECT COUNT(*) AS n FROM items WHERE conversation_ref IS NOT NULL GROUP BY conversation_ref HAVING n > 1)').pluck().get() as number;
    const times = store
      .prepare('SELECT (SELECT MIN(started_at) FROM runs) AS started, (SELECT MAX(started_at) FROM items) AS lastStart, (SELECT MAX(ended_at) FROM runs) AS ended')
      .get() as { started: string; lastStart: string; ended: string };
    store.close();
    const tailS = (Date.parse(times.ended) - Date.parse(times.lastStart)) / 1000;
    const startsS = (Date.parse(times.lastStart) - Date.parse(times.started)) / 1000;
    const unowned = Object.values(result.targets).reduce((sum, t) => sum + t.unownedConversations, 0);
    return { run, completed, conversations: await conversationsOn(emulator), shared, unowned, tailS, startsS };
  } finally {
    emulator.stop();
  }
}

const load = [os.loadavg()[0]!];
const rows: Array<{ wall: number; cpu: number; lost: number; extra: number; unowned: number; shared: number; cleanS: number; faultyS: number; tailS: number; starts: number }> = [];
for (let round = 0; round < ROUNDS; round++) {
  let clean: Outcome;
  let faulty: Outcome;
  if (round % 2 === 0) [clean, faulty] = [await once(false, round), await once(true, round)];
  else [faulty, clean] = [await once(true, round), await once(false, round)];
  if (clean.completed !== QUESTIONS) throw new Error(`the fault-free run completed ${clean.completed} of ${QUESTIONS}: ${clean.run.stderr.slice(-500)}`);
  const row = {
    wall: faulty.run.wallS / clean.run.wallS,
    cpu: faulty.run.cpuMs / clean.run.cpuMs,
    lost: QUESTIONS - faulty.completed,
    extra: Math.max(0, faulty.conversations - QUESTIONS),
    unowned: faulty.unowned,
    shared: faulty.shared,
    cleanS: clean.run.wallS,
    faultyS: faulty.run.wallS,
    tailS: faulty.tailS,
    starts: faulty.startsS / clean.startsS,
  };
  rows.push(row);
  load.push(os.loadavg()[0]!);
  process.stderr.write(`round ${round + 1}: ${row.cleanS.toFixed(1)} s clean, ${row.faultyS.toFixed(1)} s faulty (× ${row.wall.toFixed(2)}; its last ${row.tailS.toFixed(1)} s after its last item started; × ${row.starts.toFixed(2)} up to that start), CPU × ${row.cpu.toFixed(2)}, ${row.lost} lost, ${row.extra} extra creates (dsbench found ${row.unowned}), ${row.shared} items sharing a conversation\n`);
}

process.stdout.write(`### Under ${kind === 'both' ? '10% transport faults' : FAULTS.said} (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)})

${QUESTIONS.toLocaleString('en-US')} questions at concurrency ${CONCURRENCY}, --request-timeout ${REQUEST_TIMEOUT}${RETRY_BASE_DELAY ? `, --retry-base-delay ${RETRY_BASE_DELAY}` : ''}, ${ROUNDS} paired rounds; faults: ${FAULTS.said}, on every request; medians (min-max).

| fault-free wall s | faulty wall s | of it after the last item started, s | wall, faulty ÷ fault-free | up to the last item's start, faulty ÷ fault-free | CPU, faulty ÷ fault-free | items lost | creates beyond one per item | of them found by dsbench's end-of-run check | items sharing a conversation |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
| ${spread(rows.map((r) => r.cleanS), 1)} | ${spread(rows.map((r) => r.faultyS), 1)} | ${spread(rows.map((r) => r.tailS), 1)} | ${spread(rows.map((r) => r.wall))} | ${spread(rows.map((r) => r.starts))} | ${spread(rows.map((r) => r.cpu))} | ${Math.max(...rows.map((r) => r.lost))} | ${Math.max(...rows.map((r) => r.extra))} | ${Math.max(...rows.map((r) => r.unowned))} | ${Math.max(...rows.map((r) => r.shared))} |
`);
