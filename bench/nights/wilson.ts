// The Wilson score interval of k successes in n, as the benchmarks print it: "4.5% (2.4%-8.3%)".
export function wilson(k: number, n: number): string {
  const z = 1.96;
  const p = k / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  const pct = (x: number) => `${(Math.max(0, Math.min(1, x)) * 100).toFixed(1)}%`;
  return `${pct(p)} (${pct(centre - half)}-${pct(centre + half)})`;
}
