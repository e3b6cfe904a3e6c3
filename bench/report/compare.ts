// Child process of the report benchmark: compares run `baseline` with run `candidate` of one database
// (every output) and prints one JSON line with its time, peak RSS and the number of pairs.
import { compareRuns } from '../../src/report/compare/compare.js';

const [db, out, baseline, candidate] = process.argv.slice(2) as [string, string, string, string];
const started = performance.now();
const result = await compareRuns({ baseline: { db, run: baseline }, candidate: { db, run: candidate }, out });
const ms = performance.now() - started;
process.stdout.write(`${JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS, rows: result.summary.questions.paired, bytes: 0 })}\n`);
