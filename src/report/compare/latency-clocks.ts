import type { CompareRow } from './pairs.js';

/**
 * The comparable pairs of a latency timed by the server's own clock (a question's server time, a search's
 * `durationMs`) and by dsbench's wall clock (a pair where a side lacked the server's figure).
 */
export interface LatencyClocks {
  server: number;
  wall: number;
}

/** Counts, for question and for search latency, which clock timed each pair. */
export class ClockTally {
  private readonly question: LatencyClocks = { server: 0, wall: 0 };
  private readonly search: LatencyClocks = { server: 0, wall: 0 };

  add(row: CompareRow): void {
    if (row.latencyBaseline === null || row.latencyCandidate === null || row.latencySource === null) return;
    const clocks = row.kind === 'question' ? this.question : this.search;
    if (row.latencySource === 'wall') clocks.wall++;
    else clocks.server++;
  }

  /** A metric's clocks: null for one that is not a latency. */
  of(metric: string): LatencyClocks | null {
    if (metric === 'latency') return { ...this.question };
    if (metric === 'search_latency') return { ...this.search };
    return null;
  }
}
