import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { connectionFor } from '../../src/config/credentials.js';
import { loadSuite } from '../../src/config/load-suite.js';
import { executeRun } from '../../src/runner/run.js';
import { openStore } from '../../src/store/index.js';

// End-to-end throughput: questions asked, polled and recorded per second, against an emulator in another
// process that answers at once (time scale 1e-9, empty corpus), and the harness's CPU time per question.

export interface ThroughputFigures {
  api: string;
  questions: number;
  concurrency: number;
  wallS: number;
  questionsPerS: number;
  cpuMsPerQuestion: number;
  requestsPerQuestion: number;
}

const TIME_SCALE = 1e-9;

async function startEmulatorProcess(corpus: string): Promise<{ url: string; token: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'emulator', '--port', '0', '--json', '--time-scale', String(TIME_SCALE), '--corpus', corpus], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  const info = JSON.parse(line) as { url: string; tokens: Array<{ token: string; scopes: string[] }> };
  const token = info.tokens.find((t) => t.scopes.includes('externalapi:write'))?.token ?? '';
  return { url: info.url, token, stop: () => child.kill('SIGTERM') };
}

export async function measureThroughput(api: 'legacy' | 'versioned', questions: number, concurrency: number): Promise<ThroughputFigures> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dsbench-bench-tput-'));
  mkdirSync(path.join(dir, 'corpus'));
  const emulator = await startEmulatorProcess(path.join(dir, 'corpus'));
  const store = openStore(path.join(dir, 'bench.db'));
  try {
    const distinct = 20;
    const items = Array.from({ length: distinct }, (_, i) => `  - id: q${i}\n    question: "Throughput question ${i}"`).join('\n');
    writeFileSync(path.join(dir, 'suite.yaml'), `name: throughput\ndefaults:\n  api: ${api}\n  concurrency: ${concurrency}\n  repeats: ${questions / distinct}\nquestions:\n${items}\n`);
    const suite = await loadSuite(path.join(dir, 'suite.yaml'));
    const never = new AbortController().signal;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = await executeRun({
      suite,
      targets: [{ name: 'emulator', connection: connectionFor(emulator.url, emulator.token, {}), emulated: true, timeScale: TIME_SCALE }],
      recorder: store.recorder,
      observers: [],
      onQuota: 'continue',
      maxQuotaWaitMs: 0,
      cleanup: false,
      stop: never,
      abort: never,
    });
    const wallS = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const done = Object.values(result.targets).reduce((sum, t) => sum + (t.counts.completed ?? 0), 0);
    const polls = (store.db.prepare('SELECT SUM(polls) AS polls FROM turns').get() as { polls: number }).polls;
    return {
      api,
      questions: done,
      concurrency,
      wallS,
      questionsPerS: done / wallS,
      cpuMsPerQuestion: (used.user + used.system) / 1000 / done,
      requestsPerQuestion: 1 + polls / done,
    };
  } finally {
    store.close();
    emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
