import { UsageError } from '../errors/errors.js';

const NUMBER = String.raw`(\d+(?:\.\d+)?)`;

/**
 * A duration with units, largest first, each at most once: `500ms`, `90s`, `5m`, `1h`, `1m30s`, `1.5h`.
 * The `(?!s)` keeps the minutes group from eating the `m` of `ms`. Also emitted into the JSON Schema
 * (duration-schema.ts, apart so that a command-line flag's duration loads no zod).
 */
export const DURATION_PATTERN = new RegExp(`^(?=\\d)(?:${NUMBER}h)?(?:${NUMBER}m(?!s))?(?:${NUMBER}s)?(?:${NUMBER}ms)?$`);

const UNIT_MS = [3_600_000, 60_000, 1_000, 1] as const;

/** Longest delay a Node timer can hold (2^31-1 ms, about 24.8 days); a longer one would fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

export function tooLong(ms: number): string {
  return `${ms} ms, longer than the longest wait dsbench can time (${MAX_TIMER_MS} ms, about 24.8 days)`;
}

export const DURATION_HELP = 'a number of seconds (90) or a string with units: 500ms, 90s, 5m, 1h, 1m30s';

/** Milliseconds of a duration given as seconds (number) or text with units; undefined when it is not a positive duration. */
export function durationToMs(value: number | string): number | undefined {
  const ms = durationOrZeroMs(value);
  return ms !== undefined && ms > 0 ? ms : undefined;
}

function durationOrZeroMs(value: number | string): number | undefined {
  let ms: number;
  if (typeof value === 'number') {
    ms = value * 1000;
  } else {
    const match = DURATION_PATTERN.exec(value);
    if (!match) return undefined;
    ms = UNIT_MS.reduce((sum, unit, i) => sum + Number(match[i + 1] ?? 0) * unit, 0);
  }
  const rounded = Math.round(ms);
  return Number.isFinite(rounded) && rounded >= 0 ? rounded : undefined;
}

/** For command-line flags: a duration in milliseconds, or a UsageError naming where the bad value came from. */
export function parseDuration(value: string, source: string, options: { zero?: boolean } = {}): number {
  const trimmed = value.trim();
  const given = /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
  const ms = options.zero ? durationOrZeroMs(given) : durationToMs(given);
  if (ms === undefined) throw new UsageError(`${source}: "${value}" is not a ${options.zero ? '' : 'positive '}duration; use ${DURATION_HELP}`);
  if (ms > MAX_TIMER_MS) throw new UsageError(`${source}: "${value}" is ${tooLong(ms)}`);
  return ms;
}
