// How long `dsbench report --history 90 --detect` takes on 90 nights x 1,000 questions x 3 repeats: a database
// generated with SQL (one transaction; one target, one turn per item, one check, 5% errors, tags `bench` and
// one of five groups; latency x1.3 from night 70 so that there is something to find), then the command, in
// this process, timed from its call to its return, its outputs the default ones (history.csv and the summary).
// Usage: node --import tsx bench/nights/index.ts --detect-speed [--nights N] [--questions Q] [--repeats R] [--rounds K] [--db FILE] [--plain]
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runCli } from '../../src/cli/cli.js';
import { mulberry32 } from '../../src/random.js';
import { openStore } from '../../src/store/store.js';

const { values: args } = parseArgs({
  options: {
    nights: { type: 'string', default: '90' },
    questions: { type: 'string', default: '1000' },
    repeats: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    questionsToo: { type: 'boolean', default: false },
    /** Time `report --history N` without --detect instead: what the history costs on its own. */
    plain: { type: 'boolean', default: false },
    /** The database to time on: generated there when missing, and kept. */
    db: { type: 'string' },
  },
});
const NIGHTS = Number(args.nights);
const QUESTIONS = Number(args.questions);
const REPEATS = Number(args.repeats);

/** A few integers hashed to [0, 1): the generated noise, the same on every run. */
function unit(...xs: number[]): number {
  let h = 2166136261;
  for (const x of xs) h = Math.imul(h ^ x, 16777619);
  return mulberry32(h)();
}

function generateNights(file: string): void {
  const store = openStore(file);
  const db = store.db;
  db.pragma('synchronous = OFF');
  const insert = {
    run: db.prepare(`INSERT INTO runs (label, suite_name, suite_path, suite_hash, dsbench_version, options_json, started_at, ended_at, status)
      VALUES ('nightly', 'bench-suite', 'suites/bench.yaml', '${'ab'.repeat(32)}', '0.1.0', '{}', ?, ?, 'completed')`),
    target: db.prepare(`INSERT INTO targets (run_id, name, url, api, emulated) VALUES (?, 'prod', 'https://prod.example.com', 'versioned', 0)`),
    item: db.prepare(`INSERT INTO items (run_id, key, position, kind, target, suite_item_id, repeat, tags_json, status, outcome, started_at, ended_at)
      VALUES (?, ?, ?, 'question', 'prod', ?, ?, ?, 'done', ?, ?, ?)`),
    turn: db.prepare(`INSERT INTO turns (run_id, item_key, turn, text, state, error_code, server_ms, server_ms_source, wall_ms, polls, total_tokens, credits)
      VALUES (?, ?, 0, ?, ?, ?, ?, 'stats.time_millis', ?, 3, ?, ?)`),
    expectation: db.prepare(`INSERT INTO expectations (run_id, item_key, position, name, passed, reason, turn) VALUES (?, ?, 0, 'contains', ?, 'checked', NULL)`),
  };
  db.transaction(() => {
    for (let n = 0; n < NIGHTS; n++) {
      const day = Date.parse('2026-01-01T03:00:00.000Z') + n * 86_400_000;
      const runId = Number(insert.run.run(new Date(day).toISOString(), new Date(day + 3_600_000).toISOString()).lastInsertRowid);
      insert.target.run(runId);
      const slower = n >= 70 ? 1.3 : 1;
      let position = 0;
      for (let q = 0; q < QUESTIONS; q++) {
        for (let r = 0; r < REPEATS; r++) {
          const key = `prod/question/q${q}/${r}`;
          const error = unit(n, q, r, 1) < 0.05;
          const at = new Date(day + position * 1000).toISOString();
          insert.item.run(runId, key, position++, `q${q}`, r, JSON.stringify(['bench', `group-${q % 5}`]), error ? 'error' : 'completed', at, at);
          const ms = Math.round(slower * 150_000 * Math.exp(0.25 * (unit(q, 2) - 0.5) * 3.4 + 0.15 * (unit(n, q, 3) - 0.5) * 3.4 + 0.08 * (unit(n, q, r, 4) - 0.5) * 3.4));
          insert.turn.run(runId, key, `Question q${q}?`, error ? 'error' : 'completed', error ? 'TOKEN_LIMIT_EXCEEDED' : null, ms, ms + 700, error ? 0 : 12_000 + Math.round(3000 * unit(n, q, r, 5)), error ? 0 : 3 + Math.floor(3 * unit(n, q, r, 6)));
          insert.expectation.run(runId, key, !error && unit(n, q, r, 7) < (q % 3 === 0 ? 0.5 : 1) ? 1 : 0);
        }
      }
    }
  })();
  store.close();
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-detect-speed-'));
  try {
    const db = args.db ?? path.join(dir, 'results.db');
    const genStart = performance.now();
    if (!existsSync(db)) generateNights(db);
    else process.stderr.write(`timing on ${db} as it is\n`);
    process.stderr.write(`generated ${NIGHTS} nights x ${QUESTIONS} questions x ${REPEATS} repeats in ${((performance.now() - genStart) / 1000).toFixed(1)} s\n`);
    const times: number[] = [];
    const cpuTimes: number[] = [];
    let found = '';
    for (let round = 0; round < Number(args.rounds); round++) {
      let stdout = '';
      const load = os.loadavg()[0]!.toFixed(1);
      const cpu = process.cpuUsage();
      const started = performance.now();
      const detect = args.plain ? [] : [args.questionsToo ? '--detect-questions' : '--detect'];
      const argv = ['report', '--db', db, '--history', String(NIGHTS), ...detect, '--out', path.join(dir, `out-${round}`)];
      const code = await runCli(argv, { stdout: { write: (s: string) => ((stdout += s), true) }, stderr: { write: (s: string) => (process.stderr.write(s), true) }, env: {}, cwd: dir });
      const ms = performance.now() - started;
      const used = process.cpuUsage(cpu);
      const cpuMs = (used.user + used.system) / 1000;
      if (code !== 0) throw new Error(`report exited with ${code}`);
      times.push(ms);
      cpuTimes.push(cpuMs);
      found = stdout.match(/\d+ change points? in \d+ series over \d+ nights/)?.[0] ?? '';
      process.stdout.write(`round ${round + 1}: ${(ms / 1000).toFixed(2)} s wall, ${(cpuMs / 1000).toFixed(2)} s CPU (1-minute load ${load} at its start); ${found}\n`);
    }
    const median = (xs: number[]) => ([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! / 1000).toFixed(2);
    if (times.length > 0) process.stdout.write(`median ${median(times)} s wall, ${median(cpuTimes)} s CPU over ${times.length} rounds, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the end\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
