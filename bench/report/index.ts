// Report export benchmark: a database with N asked questions (default 1,000,000), exported by
// `writeReport` (questions.csv, searches.csv, summary.csv, search-summary.csv, costs.csv, report.md,
// report.json) in a child process that reports its own peak RSS. Writes bench/report/RESULTS.md.
// Run: node --import tsx bench/report/index.ts [turns] [--quick] [--rounds N]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transpile } from '../lib/transpile.js';
import { generate } from './generate.js';
import { type ProcessTimes, timed } from '../lib/timed.js';
import { baselineSql, sqlite3Version } from './sqlite3.js';

interface Measurement {
  ms: number;
  maxRssKb: number;
  rows: number;
  bytes: number;
  questionsBytes?: number;
}

const LIMIT_MB = 200;
// --quick: a small run, for `npm run bench -- --quick`; RESULTS.md is written by full runs only.
const quick = process.argv.includes('--quick');
const turns = Number(process.argv.slice(2).find((a, i, all) => /^\d+$/.test(a) && all[i - 1] !== '--rounds') ?? (quick ? 5_000 : 1_000_000));
// At the quick size (or any as small) a check that each part runs: one export and one round against sqlite3.
// `--rounds N` sets both counts (paired rounds against sqlite3 need 5 or more for a range worth quoting).
const roundsAt = process.argv.indexOf('--rounds');
const REPEATS = roundsAt > 0 ? Number(process.argv[roundsAt + 1]) : turns <= 10_000 ? 1 : 3;
const BASELINE_ROUNDS = REPEATS;
const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

function checked(name: string, times: ProcessTimes): ProcessTimes {
  if (times.status !== 0) throw new Error(`${name} exited with ${times.status}: ${times.stderr}`);
  return times;
}

/** Median (min-max) of `xs`, with `digits` decimals. */
function spread(xs: number[], digits: number): string {
  const sorted = [...xs].sort((a, b) => a - b);
  return `${sorted[Math.floor(sorted.length / 2)]!.toFixed(digits)} (${sorted[0]!.toFixed(digits)}-${sorted.at(-1)!.toFixed(digits)})`;
}

function child(script: string, args: string[]): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Measurement) : reject(new Error(`${script} exited with ${code}`))));
  });
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-report-bench-'));
try {
  const db = path.join(dir, 'bench.db');
  const load = os.loadavg()[0]!.toFixed(1);
  const genStart = performance.now();
  const generated = generate(db, turns);
  const genMs = performance.now() - genStart;
  const dbMb = (statSync(db).size / 1e6).toFixed(0);
  process.stderr.write(`generated ${generated.turns} turns, ${generated.items} items, ${generated.searches} searches (${dbMb} MB) in ${(genMs / 1000).toFixed(1)} s\n`);
  const [exportJs, compareJs, redactJs] = transpile('dsbench-report-bench', ['bench/report/export.ts', 'bench/report/compare.ts', 'bench/report/redact.ts']) as [string, string, string];
  const idle = await child(exportJs, [db, path.join(dir, 'idle'), 'idle']);
  const runs: Measurement[] = [];
  for (let i = 0; i < REPEATS; i++) {
    runs.push(await child(exportJs, [db, path.join(dir, `out-${i}`)]));
    rmSync(path.join(dir, `out-${i}`), { recursive: true, force: true });
    process.stderr.write(`export ${i + 1}: ${(runs.at(-1)!.ms / 1000).toFixed(1)} s, peak RSS ${(runs.at(-1)!.maxRssKb / 1024).toFixed(0)} MB\n`);
  }
  // Against the sqlite3 tool: whole processes in paired rounds, each round running the three in a rotating order.
  const version = sqlite3Version();
  let baselineLine = 'Against the sqlite3 tool: not measured (no sqlite3 command on this machine; `apt-get install sqlite3`).';
  if (version) {
    const sql = baselineSql(generated.runId, version);
    const cases: Array<[string, () => ProcessTimes]> = [
      ['sqlite3', () => checked('sqlite3', timed('sqlite3', ['-csv', '-header', db], { input: sql, out: path.join(dir, 'sqlite3.csv') }))],
      ['questions.csv', () => checked('questions.csv', timed(process.execPath, [exportJs, db, path.join(dir, 'q'), 'questions']))],
      ['report', () => checked('report', timed(process.execPath, [exportJs, db, path.join(dir, 'r')]))],
    ];
    const times = new Map<string, ProcessTimes[]>(cases.map(([name]) => [name, []]));
    const loads: number[] = [];
    for (let round = 0; round < BASELINE_ROUNDS; round++) {
      loads.push(os.loadavg()[0]!);
      for (let i = 0; i < cases.length; i++) {
        const [name, run] = cases[(round + i) % cases.length]!;
        times.get(name)!.push(run());
      }
    }
    const base = times.get('sqlite3')!;
    const line = (name: string): string => {
      const xs = times.get(name)!;
      const cpu = spread(xs.map((x) => x.cpuS), 2);
      const wall = spread(xs.map((x) => x.wallS), 2);
      if (name === 'sqlite3') return `sqlite3 ${version.join('.')} ${cpu} s of CPU (wall ${wall} s)`;
      return `${name === 'report' ? 'the whole report (every file)' : 'questions.csv alone'} ${cpu} s of CPU (wall ${wall} s), ${spread(xs.map((x, i) => x.cpuS / base[i]!.cpuS), 1)} times sqlite3's CPU in the same round`;
    };
    baselineLine =
      `Against the sqlite3 tool (the same query, CSV with a header, no redaction), ${BASELINE_ROUNDS} paired rounds of whole processes, ` +
      `1-minute load ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}, median (min-max): ${line('sqlite3')}; ${line('questions.csv')}; ${line('report')}.`;
  }
  for (const out of ['sqlite3.csv', 'q', 'r']) rmSync(path.join(dir, out), { recursive: true, force: true });
  process.stderr.write(`${baselineLine}\n`);
  // Redaction alone: passes of redact() over every text cell questions.csv redacts, against passes that only read them.
  const redacted = await new Promise<{ cells: number; mb: number; touchMs: number[]; redactMs: number[] }>((resolve, reject) => {
    const proc = spawn(process.execPath, [redactJs, db, String(generated.runId), '5'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${redactJs} exited with ${code}`))));
  });
  const redactNet = redacted.redactMs.map((ms, i) => ms - redacted.touchMs[i]!).sort((a, b) => a - b);
  const redactLine =
    `Redaction alone: ${redacted.cells.toLocaleString('en-US')} text cells (${redacted.mb.toFixed(0)} MB), 5 passes of redact() each less a pass that only reads them: ` +
    `median ${(redactNet[2]! / 1000).toFixed(2)} s (${(redactNet[0]! / 1000).toFixed(2)}-${(redactNet[4]! / 1000).toFixed(2)} s), ${(redacted.mb / (redactNet[2]! / 1000)).toFixed(0)} MB/s.`;
  process.stderr.write(`${redactLine}\n`);
  // A second run of the same shape, then `compare` of the two: every turn paired, every output.
  const second = generate(db, turns);
  const compared = await child(compareJs, [db, path.join(dir, 'compare'), String(generated.runId), String(second.runId)]);
  process.stderr.write(`compare: ${(compared.ms / 1000).toFixed(1)} s, peak RSS ${(compared.maxRssKb / 1024).toFixed(0)} MB\n`);
  const sorted = [...runs].sort((a, b) => a.ms - b.ms);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const peakMb = Math.max(...runs.map((r) => r.maxRssKb)) / 1024;
  const table = [
    '| asked questions | searches | database MB | output MB (questions.csv) | export time median (min-max) | rows/s | peak RSS MB (max of runs) | idle process RSS MB | limit MB |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${generated.turns.toLocaleString('en-US')} | ${generated.searches.toLocaleString('en-US')} | ${dbMb} | ${(median.bytes / 1e6).toFixed(0)} (${((median.questionsBytes ?? 0) / 1e6).toFixed(0)}) | ` +
      `${(median.ms / 1000).toFixed(1)} s (${(sorted[0]!.ms / 1000).toFixed(1)}-${(sorted.at(-1)!.ms / 1000).toFixed(1)}) | ${Math.round(generated.turns / (median.ms / 1000)).toLocaleString('en-US')} | ${peakMb.toFixed(0)} | ${(idle.maxRssKb / 1024).toFixed(0)} | ${LIMIT_MB} |`,
  ].join('\n');
  const compareLine =
    `Compare of this run with a second one of the same shape (${compared.rows.toLocaleString('en-US')} pairs, every output, ` +
    `bootstrap of 2,000 resamples for each metric), one run: ${(compared.ms / 1000).toFixed(1)} s, peak RSS ${(compared.maxRssKb / 1024).toFixed(0)} MB.`;
  const verdict = peakMb < LIMIT_MB ? `Peak RSS ${peakMb.toFixed(0)} MB is under the ${LIMIT_MB} MB limit.` : `Peak RSS ${peakMb.toFixed(0)} MB is OVER the ${LIMIT_MB} MB limit.`;
  const report = `# Report export benchmark

\`node --import tsx bench/report/index.ts ${turns}\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version},
${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, load average ${load} at the start.
The database (generated with SQL in one transaction in ${(genMs / 1000).toFixed(0)} s) has one run: two targets, items of two
turns each with ~450-character answers, two sources and a follow-up per turn, an expectation per item, and
1% as many searches. Each export is \`writeReport\` with every output (questions.csv, searches.csv,
summary.csv, search-summary.csv, costs.csv, report.md, report.json), in its own child process running
plain JavaScript (transpiled first, as the built CLI runs); peak RSS is that process's
\`process.resourceUsage().maxRSS\`; ${REPEATS} runs.
The idle figure is the same child with its modules loaded and nothing read. The machine is shared with
other work (see the load average): export times vary by tens of percent between runs, peak RSS by a few MB.

${table}

${verdict}

${baselineLine}

${compareLine}

${redactLine}
`;
  console.log(`${table}\n\n${verdict}\n\n${baselineLine}\n\n${compareLine}\n\n${redactLine}`);
  if (!quick) writeFileSync(here('./RESULTS.md'), report);
  if (peakMb >= LIMIT_MB) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
