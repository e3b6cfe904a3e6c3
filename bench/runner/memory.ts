// Peak RSS of a whole `dsbench run` process as the run grows: the CLI (plain JavaScript, as built) against
// an emulator in another process that answers at once, suites of 20 distinct questions repeated; the
// largest size once more with a follow-up to every question (two turns per item).
// Usage: node --import tsx bench/runner/memory.ts [--quick] [questions ...]
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { transpile } from '../lib/transpile.js';
import { benchDir, measure, startEmulator, writeSuite } from './processes.js';

const quick = process.argv.includes('--quick');
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
if (sizes.length === 0) sizes.push(...(quick ? [500, 2_000] : [2_000, 20_000, 100_000]));
const cases = [...sizes.map((questions) => ({ questions, followups: false })), { questions: Math.max(...sizes), followups: true }];

const [main] = transpile('dsbench-memory-bench', ['src/cli/main.ts']) as [string];
const emulator = await startEmulator(main);
const rows: string[] = [];
const load = [os.loadavg()[0]!];
try {
  for (const { questions, followups } of cases) {
    const db = path.join(benchDir, `memory-${questions}-${followups}.db`);
    const run = await measure([main, 'run', writeSuite(questions, { followups }), '--db', db, '--json'], {
      SRC_ENDPOINT: emulator.url,
      SRC_ACCESS_TOKEN: emulator.token,
    });
    for (const file of [db, `${db}-wal`, `${db}-shm`]) rmSync(file, { force: true });
    load.push(os.loadavg()[0]!);
    const turns = followups ? 2 : 1;
    rows.push(`| ${questions.toLocaleString('en-US')} | ${turns} | ${run.peakRssMb.toFixed(0)} | ${run.wallS.toFixed(1)} | ${run.code} |`);
    process.stderr.write(`${questions} questions, ${turns} turns each: peak RSS ${run.peakRssMb.toFixed(0)} MB, ${run.wallS.toFixed(1)} s, exit ${run.code}\n`);
  }
} finally {
  emulator.stop();
}
process.stdout.write(`### Peak RSS of dsbench run (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)}; one run each)

| questions | turns each | peak RSS MB | wall s | exit |
|---:|---:|---:|---:|---:|
${rows.join('\n')}
`);
