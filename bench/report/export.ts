// Child process of the report benchmark: exports one run (every CSV, report.md, report.json; or with
// `questions`, questions.csv alone, the rows the sqlite3 baseline writes) and prints one JSON line with its
// time and peak RSS. Run as plain JavaScript (see bench/lib/transpile.ts).
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeReport } from '../../src/report/report.js';
import { writeCsv } from '../../src/report/csv.js';
import { openResults, resolveRun } from '../../src/report/open.js';
import { QUESTION_COLUMNS } from '../../src/report/questions-csv.js';
import { iterateQuestionExport } from '../../src/store/queries.js';

const [db, out, mode] = process.argv.slice(2) as [string, string, string | undefined];
if (mode === 'idle') {
  process.stdout.write(`${JSON.stringify({ ms: 0, maxRssKb: process.resourceUsage().maxRSS, rows: 0, bytes: 0 })}\n`);
} else if (mode === 'questions') {
  const started = performance.now();
  const store = openResults(db);
  const run = resolveRun(store.db, db, 'latest');
  mkdirSync(out, { recursive: true });
  const file = path.join(out, 'questions.csv');
  const rows = await writeCsv(file, QUESTION_COLUMNS, iterateQuestionExport(store.db, run.id));
  store.close();
  const ms = performance.now() - started;
  const bytes = statSync(file).size;
  process.stdout.write(`${JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS, rows, bytes, questionsBytes: bytes })}\n`);
} else {
  const started = performance.now();
  const result = await writeReport({ db, run: 'latest', out, formats: new Set(['csv', 'md', 'json']) });
  const ms = performance.now() - started;
  const bytes = result.files.reduce((n, f) => n + statSync(f).size, 0);
  const questions = statSync(result.files[0]!).size;
  process.stdout.write(`${JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS, rows: result.data.counts.turns, bytes, questionsBytes: questions })}\n`);
}
