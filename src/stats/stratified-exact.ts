// Exact conditional test of a change of a 0/1 rate stratified by question (the exact test of a common odds
// ratio of 1 over K 2x2 tables: Mantel and Haenszel 1959, Zelen 1971; Mehta, Patel and Gray 1985). Within a
// question, if nothing changed, its items on both sides are alike, so given the question's total of
// successes m the candidate's share of them is hypergeometric whatever the question's own rate; the
// statistic is the candidate's successes summed over questions, its null distribution the convolution of
// those hypergeometric laws. Questions whose items all agree (m = 0 or every item a success) carry no
// information and drop out, which is what makes it strong where a rate is rare (errors) or pinned at 0 or
// 1 on one side: a question whose 2 baseline items passed and whose 6 candidate items (2 asked, 4 re-asked)
// failed is p = 1/28 alone, where a sign flip over questions gives it 1/2 however often it is re-asked.

/** One question's (or search's) trials and successes on each side, all repeats together. */
export interface ClusterCounts {
  baselineTrials: number;
  baselineSuccesses: number;
  candidateTrials: number;
  candidateSuccesses: number;
}

export interface StratifiedExactResult {
  /** Candidate successes summed over the informative questions. */
  statistic: number;
  /** P(T <= observed): small when the candidate is lower. */
  pLower: number;
  /** P(T >= observed): small when the candidate is higher. */
  pUpper: number;
  /** The smallest pLower and pUpper the questions' totals allow (all successes on the baseline side, or all on the candidate's). */
  minLower: number;
  minUpper: number;
  /** Questions with items on both sides, and those among them whose items disagree. */
  questions: number;
  informative: number;
  method: 'exact conditional';
}

const logFactorials: number[] = [0];
function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++) logFactorials.push(logFactorials[i - 1]! + Math.log(i));
  return logFactorials[n]!;
}
const logChoose = (n: number, k: number): number => logFactorial(n) - logFactorial(k) - logFactorial(n - k);

/** The law of the candidate's successes among m, drawn without replacement from nb baseline and nc candidate items: [lowest value, probabilities]. */
function hypergeometric(nb: number, nc: number, m: number): [number, number[]] {
  const lo = Math.max(0, m - nb);
  const hi = Math.min(m, nc);
  const total = logChoose(nb + nc, m);
  const pmf: number[] = [];
  for (let x = lo; x <= hi; x++) pmf.push(Math.exp(logChoose(nc, x) + logChoose(nb, m - x) - total));
  return [lo, pmf];
}

export function stratifiedExactTest(clusters: readonly ClusterCounts[]): StratifiedExactResult {
  let dist = [1];
  let offset = 0;
  let statistic = 0;
  let questions = 0;
  let informative = 0;
  for (const c of clusters) {
    const nb = c.baselineTrials;
    const nc = c.candidateTrials;
    if (!(nb > 0 && nc > 0)) continue;
    questions++;
    const m = c.baselineSuccesses + c.candidateSuccesses;
    if (m === 0 || m === nb + nc) continue;
    informative++;
    statistic += c.candidateSuccesses;
    const [lo, pmf] = hypergeometric(nb, nc, m);
    const next = new Array<number>(dist.length + pmf.length - 1).fill(0);
    for (let s = 0; s < dist.length; s++) for (let x = 0; x < pmf.length; x++) next[s + x]! += dist[s]! * pmf[x]!;
    dist = next;
    offset += lo;
  }
  const observed = statistic - offset;
  let lower = 0;
  let upper = 0;
  for (let s = 0; s < dist.length; s++) {
    if (s <= observed) lower += dist[s]!;
    if (s >= observed) upper += dist[s]!;
  }
  const clamp = (p: number): number => Math.min(1, Math.max(0, p));
  return { statistic, pLower: clamp(lower), pUpper: clamp(upper), minLower: clamp(dist[0]!), minUpper: clamp(dist[dist.length - 1]!), questions, informative, method: 'exact conditional' };
}
