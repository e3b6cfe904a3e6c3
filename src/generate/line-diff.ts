/** Lines of context around each change. */
const CONTEXT = 2;

/**
 * A unified diff of two texts, line by line (longest common subsequence), with `@@ -a,n +b,m @@` hunks;
 * "" when they are the same. Quadratic in lines: fine for suite files.
 */
export function unifiedDiff(before: string, after: string, from: string, to: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Int32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const ops: Array<{ op: ' ' | '-' | '+'; text: string; i: number; j: number }> = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) ops.push({ op: ' ', text: a[i]!, i: i++, j: j++ });
    else if (j < b.length && (i === a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) ops.push({ op: '+', text: b[j]!, i, j: j++ });
    else ops.push({ op: '-', text: a[i]!, i: i++, j });
  }
  const changed = ops.map((o, k) => (o.op === ' ' ? -1 : k)).filter((k) => k >= 0);
  if (changed.length === 0) return '';
  const hunks: string[] = [];
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, changed[k]! - CONTEXT);
    let end = changed[k]! + CONTEXT;
    while (k + 1 < changed.length && changed[k + 1]! - CONTEXT <= end + 1) end = changed[++k]! + CONTEXT;
    k++;
    const part = ops.slice(start, Math.min(ops.length, end + 1));
    const oldLines = part.filter((o) => o.op !== '+').length;
    const newLines = part.filter((o) => o.op !== '-').length;
    hunks.push(`@@ -${part[0]!.i + 1},${oldLines} +${part[0]!.j + 1},${newLines} @@`, ...part.map((o) => `${o.op}${o.text}`));
  }
  return [`--- ${from}`, `+++ ${to}`, ...hunks].join('\n') + '\n';
}
