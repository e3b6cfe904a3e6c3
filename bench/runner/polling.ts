import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectionFor } from '../../src/config/credentials.js';
import { loadSuite } from '../../src/config/load-suite.js';
import { startEmulator } from '../../src/emulator/index.js';
import { executeRun } from '../../src/runner/run.js';
import { openStore } from '../../src/store/index.js';

// Polling and latency truth against answer times that are log-normal (median 30 s, sigma 0.8), time-scaled.
// For each strategy: GET requests per question, and the detection lag (server completion to the harness
// seeing it) in unscaled seconds; and the recorded server latency against the emulator's own record.

export interface PollingFigures {
  strategy: string;
  api: string;
  questions: number;
  getsPerQuestion: number;
  meanLagS: number;
  p95LagS: number;
  /** Largest |recorded server latency - emulator's processing time|, ms (unscaled). */
  maxLatencyErrorMs: number;
  /** How many recorded latencies fall outside max(1 s, 1%) of the emulator's record. */
  latencyOutsideTolerance: number;
  /** Mean observed wall time minus server latency, unscaled s: what polling adds when latency is taken from the client. */
  meanWallExcessS: number;
}


function suiteText(n: number, strategy: 'adaptive' | 'fixed', api: string, concurrency: number): string {
  const questions = Array.from({ length: n }, (_, i) => `  - id: q${i}\n    question: "Question ${i} about retry handlers and backoff ${i * 7919}"`).join('\n');
  return `name: polling\ndefaults:\n  api: ${api}\n  concurrency: ${concurrency}\n  timeout: 1h\n  poll: {strategy: ${strategy}, interval: 3s, min: 1s, max: 15s}\nquestions:\n${questions}\n`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

export async function measurePolling(strategy: 'adaptive' | 'fixed', api: 'legacy' | 'versioned', n: number, TIME_SCALE: number, concurrency: number): Promise<PollingFigures> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dsbench-bench-poll-'));
  const emulator = await startEmulator({ timeScale: TIME_SCALE, seed: 42, medianMs: 30_000, sigma: 0.8 }, { search: async () => [] });
  const store = openStore(path.join(dir, 'bench.db'));
  try {
    writeFileSync(path.join(dir, 'suite.yaml'), suiteText(n, strategy, api, concurrency));
    const suite = await loadSuite(path.join(dir, 'suite.yaml'));
    // Anchor between real and virtual time, to express the harness's observations in server time.
    const anchorReal = Date.now();
    const anchorVirtual = emulator.clock.now();
    const toVirtual = (realMs: number) => anchorVirtual + (realMs - anchorReal) / TIME_SCALE;
    const never = new AbortController().signal;
    await executeRun({
      suite,
      targets: [{ name: 'emulator', connection: connectionFor(emulator.url, emulator.adminToken, {}), emulated: true, timeScale: TIME_SCALE }],
      recorder: store.recorder,
      observers: [],
      onQuota: 'continue',
      maxQuotaWaitMs: 0,
      cleanup: false,
      stop: never,
      abort: never,
    });
    const gets = emulator.counters()[api === 'legacy' ? 'legacy.get' : 'versioned.GetConversation'] ?? 0;
    const records = new Map(emulator.questionRecords().map((r) => [String(r.conversationId), r]));
    const rows = store.db
      .prepare(`SELECT i.conversation_ref AS ref, t.server_ms AS serverMs, t.wall_ms AS wallMs, t.observed_end_at AS observedEndAt FROM turns t JOIN items i ON i.run_id = t.run_id AND i.key = t.item_key`)
      .all() as Array<{ ref: string; serverMs: number; wallMs: number; observedEndAt: string }>;
    const lags: number[] = [];
    let maxError = 0;
    let outside = 0;
    let wallExcess = 0;
    for (const row of rows) {
      const record = records.get(row.ref.replace(/^.*\//, ''));
      if (!record || record.endedAtVirtualMs === undefined) continue;
      lags.push((toVirtual(Date.parse(row.observedEndAt)) - record.endedAtVirtualMs) / 1000);
      const error = Math.abs(row.serverMs - record.processingMs);
      maxError = Math.max(maxError, error);
      if (error > Math.max(1000, record.processingMs * 0.01)) outside++;
      wallExcess += (row.wallMs / TIME_SCALE - row.serverMs) / 1000;
    }
    lags.sort((a, b) => a - b);
    return {
      strategy,
      api,
      questions: rows.length,
      getsPerQuestion: gets / rows.length,
      meanLagS: lags.reduce((a, b) => a + b, 0) / lags.length,
      p95LagS: percentile(lags, 95),
      maxLatencyErrorMs: maxError,
      latencyOutsideTolerance: outside,
      meanWallExcessS: wallExcess / rows.length,
    };
  } finally {
    store.close();
    await emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
