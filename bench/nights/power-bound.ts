import { parseArgs } from 'node:util';
import { createRng, hashSeed } from '../../src/emulator/random.js';
import { REALISTIC, ServiceNoise } from '../../src/emulator/noise.js';
import { mulberry32 } from '../../src/random.js';
import { signFlipTest } from '../../src/stats/sign-flip.js';
import { type ClusterCounts, conditionalRateTest, informationFraction, twoLookLevels } from '../../src/stats/sequential.js';
import { SERVICE } from './nights-lib.js';
import { wilson } from './wilson.js';

// The figures behind "why 95% of error surges is out of reach with a 2-repeat baseline" in RESULTS.md,
// without running a night: the power bound (exact), confirm's decision on simulated items, and a replay of
// the emulator's own draws on null pairs (whether the bench's null reds are chance).
// Usage: node --import tsx bench/nights/power-bound.ts [--nights 3000] [--seed 5] [--replay 3000]

const { values: args } = parseArgs({ options: { nights: { type: 'string', default: '3000' }, seed: { type: 'string', default: '5' }, replay: { type: 'string', default: '3000' } } });
const ALPHA = 0.01;
const SHARE = 8 / 17;

const logFactorials: number[] = [0];
const logFactorial = (n: number): number => {
  for (let i = logFactorials.length; i <= n; i++) logFactorials.push(logFactorials[i - 1]! + Math.log(i));
  return logFactorials[n]!;
};
const logChoose = (n: number, k: number): number => (k < 0 || k > n ? -Infinity : logFactorial(n) - logFactorial(k) - logFactorial(n - k));
const binomial = (n: number, k: number, p: number): number => Math.exp(logChoose(n, k) + k * Math.log(p) + (n - k) * Math.log(1 - p));

/** Power of Fisher's conditional test randomized at the boundary (UMPU for two binomials) of "the candidate's rate is higher". */
function umpuPower(nb: number, nc: number, pb: number, pc: number, level: number): number {
  let power = 0;
  for (let m = 0; m <= nb + nc; m++) {
    const lo = Math.max(0, m - nb);
    const hi = Math.min(m, nc);
    const law = (c: number): number => Math.exp(logChoose(nc, c) + logChoose(nb, m - c) - logChoose(nb + nc, m));
    let tail = 0;
    let k = hi;
    while (k >= lo && tail + law(k) <= level) tail += law(k--);
    const gamma = k >= lo ? (level - tail) / law(k) : 0;
    for (let c = Math.max(lo, k); c <= hi; c++) power += (c > k ? 1 : gamma) * binomial(nb, m - c, pb) * binomial(nc, c, pc);
  }
  return power;
}

/** One night of the error surge as confirm decides it: 30 questions, the 6 re-asked items on the questions whose errors rose most. */
function surgeNight(random: () => number, baselineRepeats: number): { old: boolean; now: boolean; firstOnly: boolean } {
  const draw = (n: number, p: number): number => Array.from({ length: n }, () => random() < p).filter(Boolean).length;
  const counts: ClusterCounts[] = Array.from({ length: 30 }, () => ({ baselineTrials: baselineRepeats, baselineSuccesses: draw(baselineRepeats, 0.055), candidateTrials: 2, candidateSuccesses: draw(2, 0.305) }));
  const levels = twoLookLevels(ALPHA, informationFraction(60, 6));
  const signFlip = signFlipTest(counts.map((c) => c.candidateSuccesses / 2 - c.baselineSuccesses / baselineRepeats), { resamples: 2000, seed: 1 }).pUpper;
  const exactFirst = conditionalRateTest(counts).pUpper;
  const drivers = counts.map((c, i) => ({ i, d: c.candidateSuccesses / 2 - c.baselineSuccesses / baselineRepeats })).filter((x) => x.d > 0).sort((a, b) => b.d - a.d).slice(0, 6);
  const more = Math.max(1, Math.floor(6 / Math.max(1, drivers.length)));
  for (const { i } of drivers) {
    counts[i]!.candidateTrials += more;
    counts[i]!.candidateSuccesses += draw(more, 0.305);
  }
  const second = conditionalRateTest(counts).pUpper < levels.second * SHARE;
  return { old: signFlip < levels.first * SHARE || second, now: exactFirst < levels.first * SHARE || second, firstOnly: exactFirst < ALPHA * SHARE };
}

/** The emulator's draws for the bench's flaky questions on one night: [items without an error, grounded] per question. */
function flakyDraws(flaky: readonly string[], nightSeed: string, repeats: number): Array<[number, number]> {
  const noise = new ServiceNoise(REALISTIC, SERVICE, nightSeed);
  return flaky.map((text) => {
    let trials = 0;
    let grounded = 0;
    for (let occurrence = 0; occurrence < repeats; occurrence++) {
      const d = noise.draw(text, createRng(hashSeed(hashSeed(nightSeed, text, occurrence), 'noise')));
      if (d.failure !== undefined) continue;
      trials++;
      if (!d.ungrounded) grounded++;
    }
    return [trials, grounded];
  });
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
for (const [nb, nc] of [[60, 66], [180, 66]] as const) {
  process.stdout.write(`bound, errors 5.5% -> 30.5%, ${nb} baseline and ${nc} candidate items: ${pct(umpuPower(nb, nc, 0.055, 0.305, ALPHA))} at 1%, ${pct(umpuPower(nb, nc, 0.055, 0.305, ALPHA * SHARE))} at 0.47%\n`);
}
process.stdout.write(`flaky oracle, 19 baseline items failing 50%, 19 / 25 candidate items failing: ${[19, 25].map((nc) => `${pct(umpuPower(19, nc, 0.5, 0.99999, ALPHA))} at 1%`).join(', ')}\n`);
for (const repeats of [2, 6]) {
  const random = mulberry32(Number(args.seed) + repeats);
  const nights = Number(args.nights);
  const hits = { old: 0, now: 0, firstOnly: 0 };
  for (let n = 0; n < nights; n++) for (const [k, v] of Object.entries(surgeNight(random, repeats))) if (v) hits[k as keyof typeof hits]++;
  process.stdout.write(`confirm's decision on the error surge, ${repeats}-repeat baseline, ${nights} nights, seed ${args.seed}: exact first look ${hits.now}/${nights} = ${wilson(hits.now, nights)}, sign flip first look ${hits.old}/${nights} = ${wilson(hits.old, nights)}, the first look's data alone at 0.47% ${hits.firstOnly}/${nights} = ${wilson(hits.firstOnly, nights)}\n`);
}
const noise0 = new ServiceNoise(REALISTIC, SERVICE, 0);
const flaky: string[] = [];
for (let i = 0; flaky.length < 10; i++) if (noise0.flaky(`Where is handler${i} implemented, and what does it retry?`)) flaky.push(`Where is handler${i} implemented, and what does it retry?`);
for (const seed of ['1', '2', '3']) {
  for (const repeats of [2, 6]) {
    const pairs = Number(args.replay);
    let red = 0;
    for (let i = 0; i < pairs; i++) {
      const a = flakyDraws(flaky, `${seed}/null/${i}/a`, repeats);
      const b = flakyDraws(flaky, `${seed}/null/${i}/b`, 2);
      const counts = a.map(([n, g], q) => ({ baselineTrials: n, baselineSuccesses: g, candidateTrials: b[q]![0], candidateSuccesses: b[q]![1] }));
      if (conditionalRateTest(counts).pLower < twoLookLevels(ALPHA, informationFraction(60, 6)).first * SHARE) red++;
    }
    process.stdout.write(`replay of the emulator's draws, seed ${seed}, ${repeats}-repeat baselines: the first look's pass-rate test red on ${red}/${pairs} null pairs = ${wilson(red, pairs)}\n`);
  }
}
