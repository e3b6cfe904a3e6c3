// Child process of the report benchmark: the cost of redaction alone. Reads every free-text cell that
// questions.csv redacts into memory once, then times passes of redact() over them against passes that only
// touch each string, alternating. Prints one JSON line. Run as plain JavaScript (see bench/lib/transpile.ts).
import { redact } from '../../src/redact.js';
import { openResults } from '../../src/report/open.js';
import { iterateQuestionExport } from '../../src/store/queries.js';

const [db, runId, passes] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4] ?? 5)];
const store = openResults(db);
const cells: string[] = [];
for (const r of iterateQuestionExport(store.db, runId)) {
  for (const v of [r.errorRawCode, r.errorMessage, r.errorTitle, r.errorDetails, r.clientError, r.text, r.title, r.answer]) if (v) cells.push(v);
  cells.push(r.sourceLinks.join('\n'), r.suggestedFollowups.join('\n'));
}
store.close();
const bytes = cells.reduce((n, c) => n + c.length, 0);
const touchMs: number[] = [];
const redactMs: number[] = [];
let sink = 0;
for (let i = 0; i < passes; i++) {
  let start = performance.now();
  for (const c of cells) sink += c.length;
  touchMs.push(performance.now() - start);
  start = performance.now();
  for (const c of cells) sink += redact(c).length;
  redactMs.push(performance.now() - start);
}
process.stdout.write(`${JSON.stringify({ cells: cells.length, mb: bytes / 1e6, touchMs, redactMs, sink })}\n`);
