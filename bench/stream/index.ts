// Streaming-search benchmark: (a) raw read-and-discard vs (b) dsbench's decode + tally (runSearch), same
// server (a child process), same bytes. Each measurement runs in its own child so peak RSS is its own.
// Run: node --import tsx bench/stream/index.ts [sizes...]   (sizes in match objects; default 1000000 3000000)
import { fork, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_DISTINCT } from '../../src/stream/distinct.js';
import { transpile } from '../lib/transpile.js';
import type { Ceilings } from './ceilings.js';
import type { Measurement } from './client.js';

const REPEATS = 3;
/** Hand-written notes appended to the generated report. */
const NOTES = existsSync(fileURLToPath(new URL('./notes.md', import.meta.url)))
  ? `\n${readFileSync(fileURLToPath(new URL('./notes.md', import.meta.url)), 'utf8')}`
  : '';
const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const [serverJs, clientJs, ceilingsJs] = transpile('dsbench-stream-bench', ['bench/stream/server.ts', 'bench/stream/client.ts', 'bench/stream/ceilings.ts']) as [
  string,
  string,
  string,
];
// --quick: one small stream, for `npm run bench -- --quick`; RESULTS.md is written by full runs only.
const quick = process.argv.includes('--quick');
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
if (sizes.length === 0) sizes.push(...(quick ? [200_000] : [1_000_000, 3_000_000]));

async function startServer(): Promise<{ endpoint: string; stop: () => void }> {
  const child = fork(serverJs, [], { execArgv: [] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

/** Runs a script in a fresh node process and parses the JSON line it prints. */
function child<T>(script: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as T) : reject(new Error(`${script} ${args.join(' ')} exited with ${code}`))));
  });
}

const measure = (mode: 'raw' | 'tally' | 'idle', endpoint: string, matches: number): Promise<Measurement> =>
  child<Measurement>(clientJs, [mode, endpoint, String(matches)]);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mbps = (m: Measurement): number => m.bytes / 1e6 / (m.ms / 1000);
const mb = (kb: number): string => (kb / 1024).toFixed(0);

const load = os.loadavg()[0]!.toFixed(1);
const idle = await measure('idle', '', 0);
const ceilings = await child<Ceilings>(ceilingsJs, []);
const server = await startServer();
const rows: string[] = [];
const notes: string[] = [];
try {
  for (const size of sizes) {
    const raw: Measurement[] = [];
    const tally: Measurement[] = [];
    for (let i = 0; i < REPEATS; i++) {
      raw.push(await measure('raw', server.endpoint, size));
      tally.push(await measure('tally', server.endpoint, size));
    }
    for (const t of tally) {
      // Every file is distinct; beyond the default cap the distinct count stops (a lower bound, flagged).
      const files = Math.min(t.matchObjects!, DEFAULT_MAX_DISTINCT);
      if (t.verdict !== 'complete' || t.counted !== t.matchCount || t.files !== files || t.distinctCapped !== t.matchObjects! > files) {
        throw new Error(`tally disagrees with the server: ${JSON.stringify(t)}`);
      }
    }
    const a = median(raw.map(mbps));
    const b = median(tally.map(mbps));
    const t = tally[0]!;
    const matchesPerSecond = median(tally.map((m) => m.counted! / (m.ms / 1000)));
    rows.push(
      `| ${t.matchObjects!.toLocaleString('en-US')} | ${t.counted!.toLocaleString('en-US')} | ${t.files!.toLocaleString('en-US')}${t.distinctCapped ? ' (cap)' : ''} | ` +
        `${(t.bytes / 1e6).toFixed(0)} | ${a.toFixed(0)} | ${b.toFixed(0)} | ` +
        `${(matchesPerSecond / 1e6).toFixed(2)} M | ${(b / a).toFixed(2)} | ${mb(Math.max(...raw.map((m) => m.maxRssKb)))} | ${mb(Math.max(...tally.map((m) => m.maxRssKb)))} |`,
    );
    const cpu = (ms: Measurement[]): string => (median(ms.map((m) => m.cpuMs)) / 1000).toFixed(2);
    // If (b) is CPU-bound as (a) is, b/a = 0.6 leaves (b) this much CPU per byte beyond what (a) spends.
    const budgetNsPerByte = ((median(raw.map((m) => m.cpuMs)) * 1e6) / t.bytes) * (1 / 0.6 - 1);
    notes.push(
      `${t.matchObjects!.toLocaleString('en-US')} match objects: b/a = 0.6 would leave (b) ${budgetNsPerByte.toFixed(2)} ns of CPU per byte past the read ` +
        `(a decoder of ${(1000 / budgetNsPerByte).toFixed(0)} MB/s); in process, (b)'s decode runs at ${ceilings.pipeline.toFixed(0)} MB/s and the unvalidated counter at ${ceilings.unchecked.toFixed(0)} MB/s.`,
    );
    notes.push(
      `${t.matchObjects!.toLocaleString('en-US')} match objects: client CPU (median) ${cpu(raw)} s for (a), ${cpu(tally)} s for (b); ` +
        `the body stream of (a) held at most ${Math.max(...raw.map((m) => m.maxBuffered ?? 0)).toLocaleString('en-US')} bytes unread (nothing piles up).`,
    );
    process.stderr.write(`${rows.at(-1)}\n`);
  }
} finally {
  server.stop();
}

const table = [
  '| match objects | counted matches | distinct files | MB | (a) raw MB/s | (b) runSearch MB/s | (b) matches/s | b/a | peak RSS (a) MB | peak RSS (b) MB |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows,
].join('\n');
const context = [
  `In-process speeds over the same batches (no network; MB per CPU second): a bare loop over every char`,
  `${ceilings.charLoop.toFixed(0)} MB/s, JSON.parse ${ceilings.jsonParse.toFixed(0)} MB/s, the match scanner ${ceilings.general.toFixed(0)} MB/s on its general`,
  `path and ${ceilings.scanner.toFixed(0)} MB/s with learned shapes; the whole decode + tally of (b) over the stream's bytes`,
  `${ceilings.pipeline.toFixed(0)} MB/s; the same decoder feeding a counter that validates nothing (bench/stream/unchecked-count.ts) ${ceilings.unchecked.toFixed(0)} MB/s.`,
  `An idle client process (modules loaded, nothing read) peaks at ${mb(idle.maxRssKb)} MB of RSS.`,
  ...notes,
  `Load average at the end: ${os.loadavg()[0]!.toFixed(1)}.`,
].join('\n');
const report = `# Streaming search benchmark

\`node --import tsx bench/stream/index.ts\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version},
${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, load average ${load} at the start.
Server and each client run in separate processes (plain JavaScript, transpiled first) over loopback;
medians of ${REPEATS} runs; peak RSS is the largest of the runs (\`process.resourceUsage().maxRSS\` of the
client process). (a) reads the body with undici and discards it; (b) is \`runSearch\`: SSE framing, match
counting, distinct repositories and files, progress/filters/done validation. Both read the same bytes, not
compressed (the bench server never compresses; (b) runs with \`gzip: false\`). Counted matches follow the
wire counting rule (chunk ranges); every file is distinct, and the distinct count stops at its default cap.

${table}

${context}
${NOTES}`;
console.log(`${table}\n\n${context}`);
process.stderr.write('(RESULTS.md also carries the notes in bench/stream/notes.md)\n');
if (quick) process.stdout.write(report);
else writeFileSync(here('./RESULTS.md'), report);
