import type { Block } from './document.js';
import type { DetectedChange, Detection } from './change-detection.js';
import type { SeriesMetric, SeriesScope } from './history-series.js';
import { capped, fmtInt, fmtNum, fmtPct, fmtSeconds, fmtSigned, fmtSignedPct } from './tables.js';

// The change points of `report --history N --detect` in history.md and on the terminal.

const SHOWN = 50;

export function changeBlocks(d: Detection): Block[] {
  const heading: Block = { kind: 'heading', level: 2, text: ['Change points'] };
  if (d.tooFew) {
    return [
      heading,
      { kind: 'callout', text: [tooFewText(d)] },
    ];
  }
  const targets = new Set(d.changes.map((c) => c.scope.target)).size;
  const { shown, more } = capped(d.changes, SHOWN);
  // The changes first, then the method: the morning reader looks for what changed.
  return [
    heading,
    {
      kind: 'para',
      text: [
        `${fmtInt(d.changes.length)} change point${d.changes.length === 1 ? '' : 's'} in ${fmtInt(d.series)} series over ${d.nights} nights (seed ${d.seed}).` +
          (d.versionsKnown ? '' : ' No night recorded the instance\'s version, so no change is tied to one.'),
      ],
    },
    {
      kind: 'table',
      markdownOnly: true,
      table: {
        headers: ['night', 'started', ...(targets > 1 ? ['target'] : []), 'scope', 'metric', 'before → after', 'change (95% interval)', 'p', 'nearest version change'],
        align: ['right', 'left', ...(targets > 1 ? (['left'] as const) : []), 'left', 'left', 'right', 'right', 'right', 'left'],
        rows: shown.map((c) => [
          `run ${c.runId}`,
          c.startedAt,
          ...(targets > 1 ? [c.scope.target] : []),
          scopeText(c.scope),
          c.metric,
          `${level(c.metric, c.before)} → ${level(c.metric, c.after)}`,
          changeText(c),
          fmtNum(c.p, 3),
          versionText(c, d.versionsKnown),
        ]),
      },
    },
    // A terminal wraps a wide table out of its columns; a line per change wraps and stays readable.
    { kind: 'list', textOnly: true, items: shown.map((c) => [changeLine(c, targets > 1, d.versionsKnown)]) },
    ...(more > 0 ? ([{ kind: 'para', text: [`${fmtInt(more)} more in history.json.`] }] as Block[]) : []),
    { kind: 'para', text: [`Method: ${d.method}.`] },
  ];
}

/** "run 11 (2026-…Z), tag http, latency p90: 184.4 s → 279.4 s, +51.5% (95% interval …), p 0.025; version 6.9.2 → 7.0.1 at run 9, 2 nights before". */
function changeLine(c: DetectedChange, withTarget: boolean, versionsKnown: boolean): string {
  const where = `${scopeText(c.scope)}${withTarget ? ` on ${c.scope.target}` : ''}`;
  const [size, interval] = changeText(c).split(' (');
  return (
    `run ${c.runId} (${c.startedAt}), ${where}, ${c.metric}: ${level(c.metric, c.before)} → ${level(c.metric, c.after)}, ${size} (95% interval ${interval}, p ${fmtNum(c.p, 3)}; ` +
    `nearest version change: ${versionText(c, versionsKnown)}`
  );
}

/** How many nights there are, how many are needed and what to do: record more (and ask for them). */
export function tooFewText(d: Pick<Detection, 'need' | 'nights'>): string {
  const more = d.need - d.nights;
  return `Change points need at least ${d.need} nights; this history has ${d.nights}. Nothing was looked for: record ${more} more night${more === 1 ? '' : 's'} of the suite, then ask for --history ${d.need} or more.`;
}

export function scopeText(scope: SeriesScope): string {
  return scope.kind === 'suite' ? 'suite' : `${scope.kind} ${scope.name ?? ''}`;
}

function level(metric: SeriesMetric, value: number): string {
  if (metric === 'pass rate' || metric === 'error rate') return fmtPct(value);
  if (metric === 'latency p50' || metric === 'latency p90') return fmtSeconds(value);
  return metric === 'tokens' ? fmtInt(value) : fmtNum(value, 2);
}

/** "-10.0 points (-14.1 … -5.9)" or "+30.2% (+24.0% … +36.7%)". */
export function changeText(c: Pick<DetectedChange, 'unit' | 'change' | 'low' | 'high'>): string {
  if (c.unit === 'points') return `${fmtSigned(c.change * 100)} points (${fmtSigned(c.low * 100)} … ${fmtSigned(c.high * 100)})`;
  return `${fmtSignedPct(c.change)} (${fmtSignedPct(c.low)} … ${fmtSignedPct(c.high)})`;
}

export function versionText(c: Pick<DetectedChange, 'version'>, versionsKnown: boolean): string {
  if (!versionsKnown) return 'not recorded';
  const v = c.version;
  if (v === null) return 'none in these nights';
  const when = v.nights === 0 ? 'the same night' : `${Math.abs(v.nights)} night${Math.abs(v.nights) === 1 ? '' : 's'} ${v.nights < 0 ? 'before' : 'after'}`;
  return `${v.from} → ${v.to} at run ${v.runId}, ${when}`;
}
