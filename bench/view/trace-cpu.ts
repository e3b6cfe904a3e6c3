// Chromium's CPU time from a tab's navigation to its first contentful paint, by process and thread, read from a
// trace (Chrome's trace-event JSON): on a shared machine the wall time of a paint is mostly waiting for a core,
// while the CPU each process spent on the page is what the page itself costs.

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string; data?: unknown };
}

/** Where CPU went: the page's renderer (main thread, compositor, raster), the GPU process, the browser, the rest. */
export const GROUPS = ['renderer main', 'renderer compositor', 'renderer raster', 'gpu', 'browser', 'other'] as const;
export type Group = (typeof GROUPS)[number];

export interface PaintCpu {
  /** Milliseconds from navigation start to the first contentful paint, in the trace. */
  paint: number;
  /** CPU milliseconds of every process in that span, by group, and their total. */
  cpu: Record<Group | 'total', number>;
  /** Tiles the page's renderer rastered before its first paint. */
  tiles: number;
}

function groupOf(process: string, thread: string): Group {
  if (process === 'Renderer') return thread === 'CrRendererMain' ? 'renderer main' : thread === 'Compositor' ? 'renderer compositor' : 'renderer raster';
  if (process.startsWith('GPU')) return 'gpu';
  return process === 'Browser' ? 'browser' : 'other';
}

/** The CPU spent on the navigation whose address contains `marker`, up to its first contentful paint. */
export function paintCpu(events: readonly TraceEvent[], marker: string): PaintCpu {
  const names = new Map<string, string>();
  for (const e of events) if (e.ph === 'M' && (e.name === 'thread_name' || e.name === 'process_name')) names.set(e.name === 'thread_name' ? `${e.pid}/${e.tid}` : `${e.pid}`, e.args?.name ?? '');
  const start = events.find((e) => e.name === 'navigationStart' && JSON.stringify(e.args ?? {}).includes(marker));
  if (!start) throw new Error(`no navigation to an address with ${marker} in the trace`);
  const painted = events.filter((e) => e.name === 'firstContentfulPaint' && e.pid === start.pid).at(-1);
  if (!painted) throw new Error(`no first contentful paint after the navigation to ${marker} in the trace`);
  const within = (e: TraceEvent) => e.ph === 'X' && e.ts >= start.ts && e.ts <= painted.ts;
  const threads = new Map<string, TraceEvent[]>();
  for (const e of events.filter(within)) {
    const key = `${e.pid}/${e.tid}`;
    threads.set(key, [...(threads.get(key) ?? []), e]);
  }
  const cpu = Object.fromEntries([...GROUPS, 'total'].map((g) => [g, 0])) as PaintCpu['cpu'];
  for (const [key, slices] of threads) {
    // Only outermost slices: a nested one's CPU is in its parent's already.
    slices.sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    let end = -Infinity;
    let sum = 0;
    for (const e of slices) {
      if (e.ts < end) continue;
      sum += (e.tdur ?? 0) / 1000;
      end = e.ts + (e.dur ?? 0);
    }
    cpu[groupOf(names.get(key.split('/')[0]!) ?? '', names.get(key) ?? '')] += sum;
    cpu.total += sum;
  }
  const tiles = events.filter((e) => within(e) && e.name === 'RasterTask' && e.pid === start.pid).length;
  return { paint: (painted.ts - start.ts) / 1000, cpu, tiles };
}
