// CPU per recorded question: a whole `dsbench run` process (plain JavaScript, as built) against a bare loop
// (bare-loop.ts) that makes the same two requests per question and records nothing, both against a fresh
// emulator in another process that answers at once; paired rounds, the order alternating, the ratio taken
// within each round. Whole processes: start-up (about 0.3 s of CPU for dsbench) is in both figures.
// Usage: node --import tsx bench/runner/cpu.ts [--quick] [--rounds N] [--questions N]
import os from 'node:os';
import { transpile } from '../lib/transpile.js';
import { benchDir, measure, spread, startEmulator, writeSuite, type Measured } from './processes.js';
import path from 'node:path';

const quick = process.argv.includes('--quick');
const flag = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
};
const QUESTIONS = flag('--questions', quick ? 3_000 : 20_000);
const ROUNDS = flag('--rounds', quick ? 3 : 5);
const CONCURRENCY = 200;

const [main, bare] = transpile('dsbench-cpu-bench', ['src/cli/main.ts', 'bench/runner/bare-loop.ts']) as [string, string];

function completed(run: Measured): number {
  const result = JSON.parse(run.stdout) as { targets: Record<string, { counts: Record<string, number> }> };
  return Object.values(result.targets).reduce((sum, t) => sum + (t.counts.completed ?? 0), 0);
}

const load = [os.loadavg()[0]!];
const rows: Array<{ bareMs: number; dsbenchMs: number; ratio: number }> = [];
for (let round = 0; round < ROUNDS; round++) {
  const emulator = await startEmulator(main);
  try {
    const runBare = () => measure([bare, emulator.url, emulator.token, String(QUESTIONS), String(CONCURRENCY)]);
    const runDsbench = () =>
      measure([main, 'run', writeSuite(QUESTIONS, { concurrency: CONCURRENCY }), '--db', path.join(benchDir, `cpu-${round}.db`), '--json'], {
        SRC_ENDPOINT: emulator.url,
        SRC_ACCESS_TOKEN: emulator.token,
      });
    let b: Measured;
    let d: Measured;
    if (round % 2 === 0) [b, d] = [await runBare(), await runDsbench()];
    else [d, b] = [await runDsbench(), await runBare()];
    if (b.code !== 0) throw new Error(`bare loop exited ${b.code}: ${b.stderr.slice(-500)}`);
    if (d.stdout === "") throw new Error(`dsbench run printed nothing (exit ${d.code}): ${d.stderr.slice(-800)}`);
    const done = completed(d);
    if (done !== QUESTIONS) throw new Error(`dsbench run completed ${done} of ${QUESTIONS} (exit ${d.code}): ${d.stderr.slice(-500)}`);
    const row = { bareMs: b.cpuMs / QUESTIONS, dsbenchMs: d.cpuMs / QUESTIONS, ratio: d.cpuMs / b.cpuMs };
    rows.push(row);
    load.push(os.loadavg()[0]!);
    process.stderr.write(`round ${round + 1}: bare ${row.bareMs.toFixed(3)} ms, dsbench ${row.dsbenchMs.toFixed(3)} ms per question, ratio ${row.ratio.toFixed(2)}\n`);
  } finally {
    emulator.stop();
  }
}

process.stdout.write(`### CPU per recorded question against a bare loop (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)})

${QUESTIONS.toLocaleString('en-US')} questions at concurrency ${CONCURRENCY}, ${ROUNDS} paired rounds; medians (min-max); whole processes' user + system CPU.

| bare loop ms/question | dsbench run ms/question | dsbench ÷ bare, same round |
|---:|---:|---:|
| ${spread(rows.map((r) => r.bareMs), 3)} | ${spread(rows.map((r) => r.dsbenchMs), 3)} | ${spread(rows.map((r) => r.ratio))} |
`);
