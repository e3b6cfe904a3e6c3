// CPU per recorded question: a whole `dsbench run` process (the CLI as built and shipped) against a bare loop
// (bare-loop.ts) that makes the same two requests per question and records nothing, both against a fresh
// emulator in another process that answers at once; paired rounds, the order alternating, the ratio taken
// within each round. Whole processes: start-up (about 0.3 s of CPU for dsbench) is in both figures.
// With `--baseline DIR` (another checkout, e.g. the main branch) each round also runs that checkout's
// dsbench, so a change is judged before/after within the same rounds and load.
// `--transpiled` measures the sources transpiled file by file instead (what this bench measured before
// 2026-11-29), whose start-up costs several tenths of a second more.
// Usage: node --import tsx bench/runner/cpu.ts [--quick] [--rounds N] [--questions N] [--baseline DIR] [--transpiled]
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtCli } from '../lib/built.js';
import { transpile } from '../lib/transpile.js';
import { benchDir, measure, spread, startEmulator, writeSuite, type Emulator, type Measured } from './processes.js';

const quick = process.argv.includes('--quick');
const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const QUESTIONS = Number(arg('--questions') ?? (quick ? 3_000 : 20_000));
const ROUNDS = Number(arg('--rounds') ?? (quick ? 3 : 5));
const BASELINE = arg('--baseline');
const TRANSPILED = process.argv.includes('--transpiled');
const CONCURRENCY = 200;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// node_modules may be shared by several checkouts: a cache folder of this process's own.
const cacheName = `dsbench-cpu-bench-${process.pid}`;
const [bare] = transpile(cacheName, ['bench/runner/bare-loop.ts']) as [string];
const cleanups = [() => rmSync(path.dirname(path.dirname(path.dirname(bare))), { recursive: true, force: true })];
process.on('exit', () => cleanups.forEach((c) => c()));

/** `checkout`'s dsbench entry, built (or transpiled) into a cache folder removed at exit. */
async function dsbenchOf(checkout: string, name: string): Promise<string> {
  if (!TRANSPILED) {
    const built = await builtCli(checkout, name);
    cleanups.push(built.remove);
    return built.main;
  }
  const other = (await import(path.resolve(checkout, 'bench/lib/transpile.ts'))) as { transpile: typeof transpile };
  const [entry] = other.transpile(name, ['src/cli/main.ts']) as [string];
  cleanups.push(() => rmSync(path.dirname(path.dirname(path.dirname(entry))), { recursive: true, force: true }));
  return entry;
}
const main = await dsbenchOf(ROOT, `${cacheName}-dsbench`);
const before = BASELINE === undefined ? undefined : await dsbenchOf(BASELINE, `${cacheName}-baseline`);

function completed(run: Measured): number {
  const result = JSON.parse(run.stdout) as { targets: Record<string, { counts: Record<string, number> }> };
  return Object.values(result.targets).reduce((sum, t) => sum + (t.counts.completed ?? 0), 0);
}

async function runDsbench(entry: string, emulator: Emulator, db: string): Promise<Measured> {
  const d = await measure([entry, 'run', writeSuite(QUESTIONS, { concurrency: CONCURRENCY }), '--db', path.join(benchDir, db), '--json'], {
    SRC_ENDPOINT: emulator.url,
    SRC_ACCESS_TOKEN: emulator.token,
  });
  if (d.stdout === '') throw new Error(`dsbench run printed nothing (exit ${d.code}): ${d.stderr.slice(-800)}`);
  const done = completed(d);
  if (done !== QUESTIONS) throw new Error(`dsbench run completed ${done} of ${QUESTIONS} (exit ${d.code}): ${d.stderr.slice(-500)}`);
  return d;
}

const load = [os.loadavg()[0]!];
const rows: Array<{ bareMs: number; dsbenchMs: number; ratio: number; beforeRatio?: number; change?: number }> = [];
for (let round = 0; round < ROUNDS; round++) {
  const emulator = await startEmulator(main);
  try {
    const steps: Array<[string, () => Promise<Measured>]> = [
      ['bare', () => measure([bare, emulator.url, emulator.token, String(QUESTIONS), String(CONCURRENCY)])],
      ...(before !== undefined ? [['before', () => runDsbench(before as string, emulator, `cpu-before-${round}.db`)] as [string, () => Promise<Measured>]] : []),
      ['dsbench', () => runDsbench(main, emulator, `cpu-${round}.db`)],
    ];
    // Each process takes each place in turn: the order reversed every other round, and with a baseline rotated
    // too, so before and after do not keep their places.
    if (round % 2 === 1) steps.reverse();
    if (before !== undefined) steps.push(...steps.splice(0, Math.floor(round / 2) % 3));
    const m: Record<string, Measured> = {};
    for (const [name, run] of steps) m[name] = await run();
    const b = m.bare as Measured;
    const d = m.dsbench as Measured;
    if (b.code !== 0) throw new Error(`bare loop exited ${b.code}: ${b.stderr.slice(-500)}`);
    const row = { bareMs: b.cpuMs / QUESTIONS, dsbenchMs: d.cpuMs / QUESTIONS, ratio: d.cpuMs / b.cpuMs, ...(m.before && { beforeRatio: m.before.cpuMs / b.cpuMs, change: d.cpuMs / m.before.cpuMs }) };
    rows.push(row);
    load.push(os.loadavg()[0]!);
    process.stderr.write(
      `round ${round + 1}: bare ${row.bareMs.toFixed(3)} ms, dsbench ${row.dsbenchMs.toFixed(3)} ms per question, ratio ${row.ratio.toFixed(2)}` +
        `${row.beforeRatio !== undefined ? `, baseline ratio ${row.beforeRatio.toFixed(2)}, this ÷ baseline ${row.change?.toFixed(2)}` : ''} (load ${os.loadavg()[0]!.toFixed(1)})\n`,
    );
  } finally {
    emulator.stop();
  }
}

const heading = `### CPU per recorded question against a bare loop (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)})

${QUESTIONS.toLocaleString('en-US')} questions at concurrency ${CONCURRENCY}, ${ROUNDS} paired rounds, the order alternating; dsbench ${TRANSPILED ? 'transpiled file by file' : 'as built (bundled)'}; medians (min-max); whole processes' user + system CPU.
`;
const withBaseline = before !== undefined;
process.stdout.write(`${heading}
| bare loop ms/question | dsbench run ms/question | dsbench ÷ bare, same round |${withBaseline ? ' baseline ÷ bare, same round | dsbench ÷ baseline, same round |' : ''}
|---:|---:|---:|${withBaseline ? '---:|---:|' : ''}
| ${spread(rows.map((r) => r.bareMs), 3)} | ${spread(rows.map((r) => r.dsbenchMs), 3)} | ${spread(rows.map((r) => r.ratio))} |${
  withBaseline ? ` ${spread(rows.map((r) => r.beforeRatio as number))} | ${spread(rows.map((r) => r.change as number))} |` : ''
}
`);
