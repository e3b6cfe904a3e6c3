import type Database from 'better-sqlite3';
import { headersFor } from '../config/credentials.js';
import { parseSize } from '../config/size.js';
import { UsageError } from '../errors/errors.js';
import { Transport } from '../http/transport.js';
import { parseTraceSelection, type TraceSelection } from '../model/trace.js';
import type { RunTarget } from '../runner/item-context.js';
import { fetchTraces, traceArchiveDir } from '../report/trace-archive.js';
import { tracesToFetch } from '../store/queries.js';
import type { CliOutput } from './io.js';
import { terminalSafe } from '../terminal-text.js';

// `run --trace`, `--trace-fetch` and `--trace-max-size`: the flags, their checks, and the fetch after the run.

export interface TraceArgs {
  trace?: string | undefined;
  traceFetch: boolean;
  traceMaxSize: string;
}

export const TRACE_OPTIONS = {
  trace: { type: 'string', describe: "Ask the instance to trace the items' requests and keep the trace links: all, failed (links kept only for items that failed or erred), or a fraction such as 0.1 (the same items on a rerun)" },
  'trace-fetch': { type: 'boolean', default: false, describe: "With --trace: after the run, save each kept trace's JSON (gzipped) in traces-RUN beside the database; the instance's Jaeger API is for site admins" },
  'trace-max-size': { type: 'string', default: '100MB', describe: 'Most bytes of trace JSON --trace-fetch saves in all; a trace past it is cut, and said so' },
} as const;

/** The selection `--trace` gives (undefined without it); a bad one, or a fetch of nothing, is a usage error. */
export function traceSelectionOf(argv: TraceArgs): TraceSelection | undefined {
  if (argv.traceFetch && argv.trace === undefined) throw new UsageError('--trace-fetch saves the traces --trace keeps: give --trace all, failed or a fraction too');
  parseSize(argv.traceMaxSize, '--trace-max-size');
  return argv.trace === undefined ? undefined : parseTraceSelection(String(argv.trace));
}

/** Per request of the fetch, its body included. */
const FETCH_TIMEOUT_MS = 30_000;

/** After the run: fetches the traces it kept from each target's Jaeger API; says what it saved or why it stopped, never fails the run. */
export async function fetchRunTraces(db: Database.Database, dbPath: string, runId: number, targets: readonly RunTarget[], argv: TraceArgs, stderr: CliOutput): Promise<void> {
  const all = tracesToFetch(db, runId);
  const dir = traceArchiveDir(dbPath, runId);
  let maxBytes = parseSize(argv.traceMaxSize, '--trace-max-size');
  for (const target of targets) {
    const traces = all.filter((t) => t.target === target.name);
    if (traces.length === 0) continue;
    const transport = new Transport({ endpoint: target.connection.endpoint, headers: headersFor(target.connection, 'graphql'), retry: { maxAttempts: 2 }, timeoutMs: FETCH_TIMEOUT_MS });
    try {
      const fetched = await fetchTraces(transport, { runId, dir: targets.length > 1 ? `${dir}/${target.name}` : dir, traces, maxBytes, timeoutMs: FETCH_TIMEOUT_MS });
      maxBytes -= fetched.traces.reduce((sum, t) => sum + t.bytes, 0);
      const stopped = fetched.stopped ? `; stopped: ${fetched.stopped}` : '';
      stderr.write(terminalSafe(`dsbench: target ${target.name}: ${fetched.saved} of ${traces.length} traces saved in ${fetched.dir}${stopped}\n`));
    } finally {
      await transport.close();
    }
  }
}
