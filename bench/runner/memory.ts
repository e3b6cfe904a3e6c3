// Peak RSS of a whole `dsbench run` process as the run grows: the CLI (plain JavaScript, as built) against
// an emulator in another process that answers at once, suites of 20 distinct questions repeated; the
// largest size once more with a follow-up to every question (two turns per item), and once killed
// (SIGKILL) when half its items are done, then resumed: the peak of the resuming process.
// Usage: node --import tsx bench/runner/memory.ts [--quick] [questions ...]
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import os from 'node:os';
import path from 'node:path';
import { transpile } from '../lib/transpile.js';
import { benchDir, measure, startEmulator, writeSuite } from './processes.js';

const quick = process.argv.includes('--quick');
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
if (sizes.length === 0) sizes.push(...(quick ? [500, 2_000] : [2_000, 20_000, 100_000]));
const largest = Math.max(...sizes);
const cases = [
  ...sizes.map((questions) => ({ questions, followups: false, resumed: false })),
  { questions: largest, followups: true, resumed: false },
  { questions: largest, followups: false, resumed: true },
];

/** Whether half the run's items are done, read from its database as another process would. */
function halfDone(db: string, questions: number): boolean {
  try {
    const reader = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return (reader.prepare(`SELECT count(*) FROM items WHERE status = 'done'`).pluck().get() as number) * 2 >= questions;
    } finally {
      reader.close();
    }
  } catch {
    return false; // not created yet
  }
}

const [main] = transpile('dsbench-memory-bench', ['src/cli/main.ts']) as [string];
const emulator = await startEmulator(main);
const rows: string[] = [];
const load = [os.loadavg()[0]!];
try {
  for (const { questions, followups, resumed } of cases) {
    const db = path.join(benchDir, `memory-${questions}-${followups}-${resumed}.db`);
    const env = { SRC_ENDPOINT: emulator.url, SRC_ACCESS_TOKEN: emulator.token };
    const args = [main, 'run', writeSuite(questions, { followups }), '--db', db, '--json'];
    if (resumed) {
      const killed = await measure(args, env, () => halfDone(db, questions));
      if (!Number.isNaN(killed.peakRssMb)) throw new Error(`the ${questions}-question run ended (exit ${killed.code}) before half its items were done`);
    }
    const run = await measure(resumed ? [...args, '--resume', 'latest'] : args, env);
    for (const file of [db, `${db}-wal`, `${db}-shm`]) rmSync(file, { force: true });
    load.push(os.loadavg()[0]!);
    const turns = followups ? 2 : 1;
    const size = `${questions.toLocaleString('en-US')}${resumed ? ', resumed half-done' : ''}`;
    rows.push(`| ${size} | ${turns} | ${run.peakRssMb.toFixed(0)} | ${run.wallS.toFixed(1)} | ${run.code} |`);
    process.stderr.write(`${size} questions, ${turns} turns each: peak RSS ${run.peakRssMb.toFixed(0)} MB, ${run.wallS.toFixed(1)} s, exit ${run.code}\n`);
  }
} finally {
  emulator.stop();
}
process.stdout.write(`### Peak RSS of dsbench run (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)}; one run each)

| questions | turns each | peak RSS MB | wall s | exit |
|---:|---:|---:|---:|---:|
${rows.join('\n')}
`);
