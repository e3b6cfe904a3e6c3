// A busy run formats several dates per question, many within one millisecond: reuse the last string.
let lastMs = Number.NaN;
let lastIso = '';

/** Now as an ISO string. */
export function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) [lastMs, lastIso] = [now, new Date(now).toISOString()];
  return lastIso;
}
