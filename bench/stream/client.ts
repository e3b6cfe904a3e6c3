// Child process: one measurement, so that peak RSS belongs to it alone. Prints one JSON line.
// Modes: raw (read and discard), tally (runSearch), idle (modules loaded, nothing read: the RSS floor).
import { request } from 'undici';
import { Transport } from '../../src/http/transport.js';
import { STREAM_PATH, runSearch } from '../../src/stream/index.js';

export interface Measurement {
  mode: 'raw' | 'tally' | 'idle';
  bytes: number;
  ms: number;
  /** CPU time of the client process (all its threads) over `ms`. */
  cpuMs: number;
  maxRssKb: number;
  /** raw: most body bytes ever waiting in the stream's buffer (data piling up would show here). */
  maxBuffered?: number;
  counted?: number;
  matchCount?: number;
  matchObjects?: number;
  files?: number;
  distinctCapped?: boolean;
  verdict?: string;
}

const [mode, endpoint, matches] = process.argv.slice(2) as [Measurement['mode'], string, string];
const query = `retry count:all matches:${matches}`;

const cpu = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

async function raw(): Promise<Measurement> {
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const res = await request(`${endpoint}${STREAM_PATH}?q=${encodeURIComponent(query)}&v=V3`, { headers: { accept: 'text/event-stream' } });
  let bytes = 0;
  let maxBuffered = 0;
  for await (const chunk of res.body) {
    bytes += (chunk as Buffer).length;
    maxBuffered = Math.max(maxBuffered, res.body.readableLength);
  }
  return { mode, bytes, ms: performance.now() - started, cpuMs: cpu(cpuStart), maxRssKb: process.resourceUsage().maxRSS, maxBuffered };
}

async function tally(): Promise<Measurement> {
  const transport = new Transport({ endpoint, headers: {} });
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const result = await runSearch(transport, { query }, { gzip: false });
  const ms = performance.now() - started;
  const cpuMs = cpu(cpuStart);
  await transport.close();
  return {
    mode,
    bytes: result.bytes,
    ms,
    cpuMs,
    maxRssKb: process.resourceUsage().maxRSS,
    counted: result.counted,
    matchCount: result.matchCount,
    matchObjects: result.matchObjects,
    files: result.files,
    distinctCapped: result.distinctCapped,
    verdict: result.verdict,
  };
}

const idle = (): Measurement => ({ mode, bytes: 0, ms: 0, cpuMs: 0, maxRssKb: process.resourceUsage().maxRSS });
const measurement = mode === 'raw' ? await raw() : mode === 'tally' ? await tally() : idle();
process.stdout.write(`${JSON.stringify(measurement)}\n`);
