import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { syntheticPlan, writeShard } from './generate.js';

// `dsbench merge` of 4 shards of 250,000 items each (1,000,000 items, 990,000 question turns with two
// sources and a follow-up each, 10,000 searches, one check per item): wall time and peak RSS of the
// merging process, each merge into a fresh database, in a process of its own.
// Usage: node --import tsx bench/merge/index.ts [--quick] [--runs N]; --quick: 4 x 5,000 items, one run, RESULTS.md untouched.
// The shard databases are generated once and kept in node_modules/.cache/dsbench-bench-merge/.

const quick = process.argv.includes('--quick');
const PER_SHARD = quick ? 5_000 : 250_000;
const SHARDS = 4;
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : quick ? 1 : 3;

const root = fileURLToPath(new URL('../..', import.meta.url));
const cache = path.join(root, 'node_modules', '.cache', 'dsbench-bench-merge', String(PER_SHARD));
const f = (n: number, digits = 1) => n.toFixed(digits);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

function shards(): string[] {
  mkdirSync(cache, { recursive: true });
  const files = Array.from({ length: SHARDS }, (_, i) => path.join(cache, `shard-${i + 1}.db`));
  const done = path.join(cache, 'complete');
  if (existsSync(done)) return files;
  for (const file of files) rmSync(file, { force: true });
  const whole = syntheticPlan(PER_SHARD * SHARDS);
  files.forEach((file, i) => {
    const started = performance.now();
    const n = writeShard(file, whole, i + 1, SHARDS);
    process.stderr.write(`generated ${file}: ${n} items in ${f((performance.now() - started) / 1000)} s\n`);
  });
  writeFileSync(done, '');
  return files;
}

const files = shards();
const sizeMB = files.reduce((sum, file) => sum + statSync(file).size, 0) / 1024 / 1024;
const results: Array<{ ms: number; maxRssMB: number }> = [];
const loads: string[] = [];
for (let run = 0; run < RUNS; run++) {
  const into = path.join(cache, `merged-${run}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(into + suffix, { force: true });
  loads.push(load());
  const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench/merge/merge-once.ts'), into, ...files], { cwd: root, encoding: 'utf8' });
  const result = JSON.parse(out.trim().split('\n').at(-1)!) as { ms: number; maxRssMB: number; items: number };
  if (result.items !== PER_SHARD * SHARDS) throw new Error(`merged ${result.items} items, expected ${PER_SHARD * SHARDS}`);
  results.push(result);
  process.stderr.write(`merge ${run + 1}/${RUNS}: ${f(result.ms / 1000)} s, peak RSS ${f(result.maxRssMB)} MB (load ${loads.at(-1)})\n`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(into + suffix, { force: true });
}
const ms = results.map((r) => r.ms / 1000);
const rss = results.map((r) => r.maxRssMB);
const text = [
  `## Merge benchmark (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version})`,
  '',
  `${SHARDS} shards of ${PER_SHARD.toLocaleString('en')} items (${f(sizeMB, 0)} MB of shard databases) merged into a fresh database, ${RUNS} runs, each in its own process.`,
  `Load average (1, 5, 15 min) before each run: ${loads.join('; ')}.`,
  '',
  '| figure | median | min | max |',
  '|---|---:|---:|---:|',
  `| wall time s | ${f(median(ms))} | ${f(Math.min(...ms))} | ${f(Math.max(...ms))} |`,
  `| peak RSS MB | ${f(median(rss))} | ${f(Math.min(...rss))} | ${f(Math.max(...rss))} |`,
  '',
].join('\n');
process.stdout.write(`${text}\n`);
if (!quick) writeFileSync(new URL('./RESULTS.md', import.meta.url), `${text}\n`);
