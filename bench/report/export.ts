// Child process of the report benchmark: exports one run (every CSV, report.md, report.json) and prints
// one JSON line with its time and peak RSS. Run as plain JavaScript (see bench/lib/transpile.ts).
import { statSync } from 'node:fs';
import { writeReport } from '../../src/report/report.js';

const [db, out, mode] = process.argv.slice(2) as [string, string, string | undefined];
if (mode === 'idle') {
  process.stdout.write(`${JSON.stringify({ ms: 0, maxRssKb: process.resourceUsage().maxRSS, rows: 0, bytes: 0 })}\n`);
} else {
  const started = performance.now();
  const result = await writeReport({ db, run: 'latest', out, formats: new Set(['csv', 'md', 'json']) });
  const ms = performance.now() - started;
  const bytes = result.files.reduce((n, f) => n + statSync(f).size, 0);
  const questions = statSync(result.files[0]!).size;
  process.stdout.write(`${JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS, rows: result.data.counts.turns, bytes, questionsBytes: questions })}\n`);
}
