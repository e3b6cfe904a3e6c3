import type { RunResult } from '../runner/run.js';

const COLUMNS = ['completed', 'error', 'canceled', 'timeout', 'client_error', 'complete', 'limit_hit', 'truncated', 'http_error', 'skipped', 'pending'] as const;

/** The table printed at the end of a run: one row per target, counts by outcome, credits, expectations. */
export function formatRunSummary(result: RunResult, dbPath: string, emulated: boolean): string {
  const used = COLUMNS.filter((c) => Object.values(result.targets).some((t) => (t.counts[c] ?? 0) > 0));
  const header = ['target', ...used, 'credits', 'expect ok', 'expect failed'];
  const rows = Object.entries(result.targets).map(([name, t]) => [name, ...used.map((c) => String(t.counts[c] ?? 0)), String(t.credits), String(t.passed), String(t.failed)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  const stops = Object.entries(result.targets)
    .filter(([, t]) => t.stopped)
    .map(([name, t]) => `  ${name}: ${t.stopped}\n`)
    .join('');
  return (
    `\nRun ${result.runId} ${result.status} in ${(result.wallMs / 1000).toFixed(1)} s${emulated ? ' (emulated instance)' : ''}; recorded in ${dbPath}\n\n` +
    `${line(header)}\n${rows.map(line).join('\n')}\n` +
    (stops ? `\nStopped targets:\n${stops}` : '') +
    `\nExpectations: ${result.expectations.passed} passed, ${result.expectations.failed} failed. Exit code ${result.exitCode}.\n`
  );
}
