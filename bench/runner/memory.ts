// Peak RSS of a whole `dsbench run` process as the run grows: the CLI (plain JavaScript, as built) against
// an emulator in another process that answers at once, suites of 20 distinct questions repeated; the
// largest size once more with a follow-up to every question (two turns per item).
// Usage: node --import tsx bench/runner/memory.ts [--quick] [questions ...]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { transpile } from '../lib/transpile.js';

const quick = process.argv.includes('--quick');
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
if (sizes.length === 0) sizes.push(...(quick ? [500, 2_000] : [2_000, 20_000, 100_000]));
const cases = [...sizes.map((questions) => ({ questions, followups: false })), { questions: Math.max(...sizes), followups: true }];

const [main] = transpile('dsbench-memory-bench', ['src/cli/main.ts']) as [string];
const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-memory-bench-'));
// Loaded into the measured process: prints its own peak RSS as it exits.
const peak = path.join(dir, 'peak.mjs');
writeFileSync(peak, "process.on('exit', () => process.stderr.write(`PEAK_RSS_KB ${process.resourceUsage().maxRSS}\\n`));\n");

function node(args: string[], env: Record<string, string> = {}) {
  return spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', ...env } });
}

try {
  mkdirSync(path.join(dir, 'corpus'));
  const emulator = node([main, 'emulator', '--port', '0', '--json', '--time-scale', '1e-9', '--corpus', path.join(dir, 'corpus')]);
  const info = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: emulator.stdout! }).once('line', resolve))) as {
    url: string;
    tokens: Array<{ token: string; scopes: string[] }>;
  };
  const token = info.tokens.find((t) => t.scopes.includes('externalapi:write'))?.token ?? '';
  const rows: string[] = [];
  const load = os.loadavg()[0]!.toFixed(1);
  try {
    for (const { questions, followups } of cases) {
      const suite = path.join(dir, `suite-${questions}-${followups}.yaml`);
      const followup = (i: number) => (followups ? `\n    followups:\n      - "Memory follow-up ${i}"` : '');
      const items = Array.from({ length: 20 }, (_, i) => `  - id: q${i}\n    question: "Memory question ${i}"${followup(i)}`).join('\n');
      writeFileSync(suite, `name: memory\ndefaults:\n  concurrency: 200\n  repeats: ${Math.ceil(questions / 20)}\nquestions:\n${items}\n`);
      const started = performance.now();
      const db = path.join(dir, `run-${questions}-${followups}.db`);
      const run = node(['--import', peak, main, 'run', suite, '--db', db, '--json'], {
        SRC_ENDPOINT: info.url,
        SRC_ACCESS_TOKEN: token,
      });
      let stderr = '';
      run.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      run.stdout!.resume();
      const code = await new Promise<number | null>((resolve) => run.on('close', resolve));
      const wallS = (performance.now() - started) / 1000;
      const kb = Number(/PEAK_RSS_KB (\d+)/.exec(stderr)?.[1]);
      if (!kb) throw new Error(`run of ${questions} exited ${code}: ${stderr.slice(-500)}`);
      for (const file of [db, `${db}-wal`, `${db}-shm`]) rmSync(file, { force: true });
      const turns = followups ? 2 : 1;
      rows.push(`| ${questions.toLocaleString('en-US')} | ${turns} | ${(kb / 1024).toFixed(0)} | ${wallS.toFixed(1)} | ${code} |`);
      process.stderr.write(`${questions} questions, ${turns} turns each: peak RSS ${(kb / 1024).toFixed(0)} MB, ${wallS.toFixed(1)} s, exit ${code}\n`);
    }
  } finally {
    emulator.kill('SIGTERM');
  }
  process.stdout.write(`### Peak RSS of dsbench run (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${load}; one run each)

| questions | turns each | peak RSS MB | wall s | exit |
|---:|---:|---:|---:|---:|
${rows.join('\n')}
`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
