// How long a resume started right after a crash waits for the dead process's sends. A run under 5%
// connection resets (creates whose outcome is unknown, each waiting out a landing window before it is asked
// again) is killed with SIGKILL 1.5 s after its database first holds the run (counted from there, not from
// the spawn, so that a slow start-up on a loaded machine cannot kill it before it recorded anything); the emulator's faults are switched off and the run is resumed at
// once. A send of a process that is gone was given up by the time the resume took the run over, so the
// resume should take about one request timeout, not two. Also counts items not completed and conversations
// beyond one per item; the latter cannot show a send asked again too early here (the emulator's resets come
// before it acts): the resume tests check the bound itself.
// Usage: node --import tsx bench/runner/resume-wait.ts [--rounds N] [--questions N] [--request-timeout 10s]
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { transpile } from '../lib/transpile.js';
import { benchDir, conversationsOn, faultsOff, measure, spread, startEmulator, writeSuite } from './processes.js';

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const ROUNDS = Number(arg('--rounds') ?? 3);
const QUESTIONS = Number(arg('--questions') ?? 2000);
const REQUEST_TIMEOUT = arg('--request-timeout') ?? '10s';
const KILL_AFTER_MS = 1500;

const [main] = transpile('dsbench-resume-wait-bench', ['src/cli/main.ts']) as [string];
const suite = writeSuite(QUESTIONS, { concurrency: 50 });

/** Whether the run is in its database yet, read as another process would. */
function recorded(db: string): boolean {
  try {
    const reader = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return (reader.prepare('SELECT count(*) FROM runs').pluck().get() as number) > 0;
    } finally {
      reader.close();
    }
  } catch {
    return false; // not created yet
  }
}

const load = [os.loadavg()[0]!];
const rows: Array<{ resumeS: number; completed: number; extra: number }> = [];
for (let round = 0; round < ROUNDS; round++) {
  const emulator = await startEmulator(main, ['--fault-rate-reset', '0.05']);
  try {
    const env = { SRC_ENDPOINT: emulator.url, SRC_ACCESS_TOKEN: emulator.token };
    const db = path.join(benchDir, `resume-wait-${round}.db`);
    let recordedAt: number | undefined;
    const killWhen = () => {
      recordedAt ??= recorded(db) ? performance.now() : undefined;
      return recordedAt !== undefined && performance.now() - recordedAt > KILL_AFTER_MS;
    };
    const killed = await measure([main, 'run', suite, '--db', db, '--request-timeout', REQUEST_TIMEOUT], env, killWhen);
    if (Number.isFinite(killed.cpuMs)) throw new Error(`the run ended (exit ${killed.code}) before it was killed: use more --questions`);
    await faultsOff(emulator);
    const resumed = await measure([main, 'run', '--resume', '1', '--db', db, '--request-timeout', REQUEST_TIMEOUT, '--json'], env);
    if (resumed.code !== 0) throw new Error(`the resume exited ${resumed.code}: ${resumed.stderr.slice(-500)}`);
    const result = JSON.parse(resumed.stdout) as { targets: Record<string, { counts: Record<string, number> }> };
    const completed = Object.values(result.targets).reduce((sum, t) => sum + (t.counts.completed ?? 0), 0);
    const row = { resumeS: resumed.wallS, completed, extra: Math.max(0, (await conversationsOn(emulator)) - QUESTIONS) };
    rows.push(row);
    load.push(os.loadavg()[0]!);
    process.stderr.write(`round ${round + 1}: resumed in ${row.resumeS.toFixed(2)} s, ${row.completed} of ${QUESTIONS} completed, ${row.extra} creates beyond one per item\n`);
  } finally {
    emulator.stop();
  }
}

process.stdout.write(`### A resume right after a crash (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)})

${QUESTIONS.toLocaleString('en-US')} questions at concurrency 50, --request-timeout ${REQUEST_TIMEOUT}, 5% connection resets, killed (SIGKILL) ${KILL_AFTER_MS / 1000} s after the run was recorded and resumed at once without faults; ${ROUNDS} rounds; medians (min-max).

| resume wall s | items completed | creates beyond one per item |
|---:|---:|---:|
| ${spread(rows.map((r) => r.resumeS))} | ${Math.min(...rows.map((r) => r.completed))} of ${QUESTIONS} | ${Math.max(...rows.map((r) => r.extra))} |
`);
