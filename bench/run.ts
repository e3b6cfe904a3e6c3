import { spawnSync } from 'node:child_process';

// `npm run bench`: every benchmark, one after another, each in its own process so none disturbs another.
// `npm run bench -- --quick`: each at a small size (a check that all run; RESULTS.md files untouched).
const benches = ['bench/startup/index.ts', 'bench/stream/index.ts', 'bench/runner/index.ts', 'bench/report/index.ts', 'bench/grade/index.ts', 'bench/merge/index.ts'];
let failed = false;
for (const bench of benches) {
  process.stderr.write(`\n== ${bench}\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', bench, ...process.argv.slice(2)], { stdio: 'inherit' });
  failed ||= result.status !== 0;
}
process.exitCode = failed ? 1 : 0;
