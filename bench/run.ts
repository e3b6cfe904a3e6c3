import { spawnSync } from 'node:child_process';
import os from 'node:os';

// `npm run bench`: every benchmark, one after another, each in its own process so none disturbs another.
// `npm run bench -- --quick`: each at a small size (a check that all run; RESULTS.md files untouched).
const benches = ['bench/startup/index.ts', 'bench/stream/index.ts', 'bench/runner/index.ts', 'bench/report/index.ts', 'bench/grade/index.ts', 'bench/merge/index.ts'];
const started = performance.now();
const took: string[] = [];
let failed = false;
for (const bench of benches) {
  process.stderr.write(`\n== ${bench}\n`);
  const start = performance.now();
  const result = spawnSync(process.execPath, ['--import', 'tsx', bench, ...process.argv.slice(2)], { stdio: 'inherit' });
  took.push(`${bench.split('/')[1]} ${((performance.now() - start) / 1000).toFixed(0)} s${result.status === 0 ? '' : ' (FAILED)'}`);
  failed ||= result.status !== 0;
}
const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
process.stderr.write(`\n== all benchmarks: ${((performance.now() - started) / 1000).toFixed(0)} s (${took.join(', ')}); load average now ${load}\n`);
process.exitCode = failed ? 1 : 0;
