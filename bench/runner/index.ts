import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { measurePolling, type PollingFigures } from './polling.js';
import { measureThroughput, type ThroughputFigures } from './throughput.js';

// The runner's benchmarks: polling against a fixed 3 s poll, latency truth, end-to-end throughput, CPU per
// question against a bare loop (cpu.ts), wall time under 10% transport faults (faults.ts), how long a resume
// right after a crash waits (resume-wait.ts) and peak RSS as the run grows (memory.ts, full mode only:
// several minutes at 100,000 questions).
// Usage: node --import tsx bench/runner/index.ts [--quick]

const quick = process.argv.includes('--quick');
// 1,000 questions: the mean lag of a run is known to about ±0.03 s (a question's lag has a spread of about 1 s).
const POLL_QUESTIONS = quick ? 100 : 1000;
const LATENCY_QUESTIONS = quick ? 100 : 300;
const THROUGHPUT_QUESTIONS = quick ? 500 : 2000;
// --quick runs the emulator's answer times 3 times faster again: a check that polling runs, in a third of the time.
const POLL_TIME_SCALE = quick ? 0.03 : 0.1;
const POLL_CONCURRENCY = 100;

const f = (n: number, digits = 2) => n.toFixed(digits);

async function main(): Promise<void> {
  const polling: PollingFigures[] = [];
  for (const [strategy, api, n] of [['fixed', 'versioned', POLL_QUESTIONS], ['adaptive', 'versioned', POLL_QUESTIONS], ['adaptive', 'legacy', LATENCY_QUESTIONS]] as const) {
    polling.push(await measurePolling(strategy, api, n, POLL_TIME_SCALE, POLL_CONCURRENCY));
    process.stderr.write(`polling ${strategy} ${api} done\n`);
  }
  const throughput: ThroughputFigures[] = [];
  for (const api of ['versioned', 'legacy'] as const) {
    throughput.push(await measureThroughput(api, THROUGHPUT_QUESTIONS, 200));
    process.stderr.write(`throughput ${api} done\n`);
  }
  const fixed = polling[0] as PollingFigures;
  const adaptive = polling[1] as PollingFigures;
  const lines = [
    `## Runner benchmarks (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${f(os.loadavg()[0] ?? 0)})`,
    '',
    `### Polling: log-normal answer times (median 30 s, sigma 0.8), time scale ${POLL_TIME_SCALE}, concurrency ${POLL_CONCURRENCY}; lags in unscaled seconds; latency error is the recorded server latency against the emulator's own record`,
    '',
    '| strategy | API | questions | GETs per question | mean lag s | p95 lag s | max latency error ms | outside max(1 s, 1%) | mean wall − server s |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...polling.map((p) => `| ${p.strategy} | ${p.api} | ${p.questions} | ${f(p.getsPerQuestion)} | ${f(p.meanLagS)} | ${f(p.p95LagS)} | ${f(p.maxLatencyErrorMs, 0)} | ${p.latencyOutsideTolerance} | ${f(p.meanWallExcessS)} |`),
    '',
    `Adaptive against fixed 3 s: ${f((adaptive.getsPerQuestion / fixed.getsPerQuestion - 1) * 100, 1)}% GET requests, mean lag ${f(adaptive.meanLagS - fixed.meanLagS)} s.`,
    '',
    `### Throughput: ${THROUGHPUT_QUESTIONS.toLocaleString('en-US')} questions at concurrency 200, emulator in another process answering at once`,
    '',
    '| API | questions | wall s | questions/s | harness CPU ms per question | requests per question |',
    '|---|---:|---:|---:|---:|---:|',
    ...throughput.map((t) => `| ${t.api} | ${t.questions} | ${f(t.wallS)} | ${f(t.questionsPerS, 0)} | ${f(t.cpuMsPerQuestion)} | ${f(t.requestsPerQuestion)} |`),
    '',
  ];
  // Whole-process benchmarks, each in its own process; quick mode runs them once at a small size.
  const child = (file: string, args: string[]) => execFileSync(process.execPath, ['--import', 'tsx', file, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  lines.push(child('bench/runner/cpu.ts', quick ? ['--questions', '1000', '--rounds', '1'] : []));
  lines.push(child('bench/runner/faults.ts', quick ? ['--questions', '500', '--rounds', '1'] : []));
  lines.push(child('bench/runner/resume-wait.ts', quick ? ['--questions', '1000', '--rounds', '1', '--request-timeout', '2s'] : []));
  if (!quick) lines.push(child('bench/runner/memory.ts', []));
  const text = lines.join('\n');
  process.stdout.write(`${text}\n`);
  if (!quick) writeFileSync(new URL('./RESULTS.md', import.meta.url), `${text}\n`);
}

await main();
