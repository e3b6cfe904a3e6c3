import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createRng, hashSeed } from '../../src/emulator/random.js';
import { mulberry32 } from '../../src/random.js';
import { REALISTIC, ServiceNoise, serviceNoise, type NoiseOptions } from '../../src/emulator/noise.js';
import { computeUsage } from '../../src/emulator/usage.js';
import { detectChanges } from '../../src/report/change-detection.js';
import { type MetricSeries, type Night, SERIES_METRICS, type SeriesMetric, ScopeTally } from '../../src/report/history-series.js';
import { wilson } from './wilson.js';

// The series benchmark (`--series`): how `report --history 90 --detect` does over 90 nights of the emulator's
// realistic noise. Each night is simulated from the emulator's own noise model (src/emulator/noise.ts:
// ServiceNoise.draw per asking, the night's seed for the night effects), not asked over HTTP; an asking's
// credits and tokens come from the emulator's usage model (computeUsage) with 2 tool calls, 2 hits per call
// when the answer is grounded. An asking passes when it neither errs nor is ungrounded (the nights suite's
// check: the answer links a file); an errored asking fails its check, which the pass rate leaves out (it
// counts in the error rate), and has no latency, credits or tokens.
// Scenarios, each on its own seeds:
// - null: 90 unchanged nights, looked at once; every change point is false;
// - a step from night START (latency x1.3; pass rate -10 points: flaky questions grounded less often) and a
//   creep (latency x1.01 a night from START): looked at each morning after nights START..START+9 over the
//   nights so far; found on the first morning a change point of the metric is reported at night START-2 or
//   later. Misses (not found within 3 nights, the creep 10) are told apart: placed too early, or not found.
// With --oracle, instead: a bound for the pass-rate drop and the creep, by a test told the change's first
// night and looking once (morning 3, morning 10): the nights since against the 80 before, by permutation.
// Usage: node --import tsx bench/nights/index.ts --series [--seeds N] [--seed S] [--questions Q] [--flaky F] [--repeats R] [--write] [--oracle]
//   [--only NAME] [--nights-cache FILE]

const { values: args } = parseArgs({
  options: {
    seeds: { type: 'string', default: '100' },
    seed: { type: 'string', default: '1' },
    questions: { type: 'string', default: '30' },
    flaky: { type: 'string', default: '10' },
    repeats: { type: 'string', default: '2' },
    write: { type: 'boolean', default: false },
    oracle: { type: 'boolean', default: false },
    /** Only the scenarios whose name contains this ('null' for the null histories). */
    only: { type: 'string' },
    /** A file keeping the simulated nights: read when it exists, else written (a change to the detection replayed on the same nights). */
    'nights-cache': { type: 'string' },
  },
});
const SEEDS = Number(args.seeds);
const QUESTIONS = Number(args.questions);
const FLAKY = Number(args.flaky);
const REPEATS = Number(args.repeats);
const NIGHTS = 90;
const START = 80;
const MORNINGS = 10;
const SERVICE = 'nights-bench';

/** The questions: exactly FLAKY of them flaky for this service (as the nights benchmark picks them). */
function questionTexts(): string[] {
  const noise = new ServiceNoise(REALISTIC, SERVICE, 0);
  const flaky: string[] = [];
  const stable: string[] = [];
  for (let i = 0; flaky.length < FLAKY || stable.length < QUESTIONS - FLAKY; i++) {
    const text = `Where is handler${i} implemented, and what does it retry?`;
    if (noise.flaky(text)) {
      if (flaky.length < FLAKY) flaky.push(text);
    } else if (stable.length < QUESTIONS - FLAKY) stable.push(text);
  }
  return [...flaky, ...stable];
}

type Regression = NoiseOptions['regression'];
type NightValues = Record<SeriesMetric, number | null>;

const cacheFile = args['nights-cache'];
const cache: Record<string, NightValues[]> = cacheFile && existsSync(cacheFile) ? (JSON.parse(readFileSync(cacheFile, 'utf8')) as Record<string, NightValues[]>) : {};
let cacheChanged = false;

/** `count` nights of one history (its key names its seed, scenario and number), simulated or from the cache. */
function history(texts: readonly string[], key: string, count: number, at: (i: number) => Regression): NightValues[] {
  const cached = cache[key];
  if (cached && cached.length >= count) return cached.slice(0, count);
  const values = Array.from({ length: count }, (_, i) => night(texts, `${key}/${i}`, at(i)));
  if (cacheFile) {
    cache[key] = values;
    cacheChanged = true;
  }
  return values;
}

function saveCache(): void {
  if (cacheFile && cacheChanged) writeFileSync(cacheFile, JSON.stringify(cache));
}

/** One simulated night: each metric's suite value. */
function night(texts: readonly string[], nightSeed: string, regression: Regression): NightValues {
  const noise = serviceNoise({ profile: 'realistic', serviceSeed: SERVICE, regression }, nightSeed)!;
  const tally = new ScopeTally();
  texts.forEach((text, q) => {
    for (let r = 0; r < REPEATS; r++) {
      const rng = createRng(hashSeed(nightSeed, 'item', q, r));
      const d = noise.draw(text, rng);
      const failed = d.failure !== undefined;
      const grounded = !failed && !d.ungrounded;
      const usage = failed ? null : computeUsage({ timeMillis: d.processingMs, toolCalls: 2, hits: grounded ? 4 : 0, questionChars: text.length, outputChars: grounded ? 600 : 330 }, rng);
      tally.add({
        target: 'instance',
        kind: 'question',
        suiteItemId: `q${q}`,
        tagsJson: '[]',
        errored: failed ? 1 : 0,
        passed: grounded ? 1 : 0,
        ms: failed ? null : d.processingMs,
        credits: usage?.credits ?? null,
        tokens: usage?.totalTokens ?? null,
      });
    }
  });
  return tally.values();
}

interface Scenario {
  name: string;
  metrics: SeriesMetric[];
  /** The regression on night i (0-based), or null for none. */
  at: (i: number) => Regression;
  /** Nights within which it must be found (issue 31): its misses are told apart by where they were placed. */
  within: number;
}

/** Grounded rate of flaky questions that lowers the pass rate (of the askings that did not err) by 10 points. */
const FLAKY_GROUNDED_MINUS_10 = REALISTIC.flakyGroundedRate - (0.1 * QUESTIONS) / FLAKY;

const SCENARIOS: Scenario[] = [
  { name: 'latency x1.3', metrics: ['latency p50', 'latency p90'], at: (i) => (i >= START ? { latencyFactor: 1.3 } : {}), within: 3 },
  { name: 'pass rate -10 points', metrics: ['pass rate'], at: (i) => (i >= START ? { flakyGroundedRate: FLAKY_GROUNDED_MINUS_10 } : {}), within: 3 },
  { name: 'latency +1% a night', metrics: ['latency p50', 'latency p90'], at: (i) => (i >= START ? { latencyFactor: 1.01 ** (i - START + 1) } : {}), within: 10 },
];

function series(values: readonly NightValues[]): MetricSeries[] {
  return SERIES_METRICS.map((metric) => ({ scope: { target: 'instance', kind: 'suite', name: null }, metric, values: values.map((v) => v[metric]) }));
}

function nightsOf(n: number): Night[] {
  return Array.from({ length: n }, (_, i) => ({ runId: i + 1, startedAt: `night ${i + 1}`, productVersions: {} }));
}

/**
 * Nights of the new level seen when first found (1 = the morning after its first night), or null; and the
 * first morning with a change point of the metric placed only before night START - 1 (found, placed early).
 */
function delay(values: readonly NightValues[], metrics: readonly SeriesMetric[], seed: number): { seen: number | null; early: number | null } {
  let early: number | null = null;
  for (let seen = 1; seen <= MORNINGS; seen++) {
    const upTo = values.slice(0, START + seen);
    const found = detectChanges(nightsOf(upTo.length), series(upTo).filter((s) => metrics.includes(s.metric)), seed).changes;
    if (found.some((c) => c.night >= START - 2)) return { seen, early };
    if (found.length > 0) early ??= seen;
  }
  return { seen: null, early };
}

const only = (name: string) => args.only === undefined || name.includes(args.only);

function main(): void {
  const started = performance.now();
  const texts = questionTexts();
  const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');
  const lines: string[] = [
    `Series benchmark, seed ${args.seed}: ${QUESTIONS} questions (${FLAKY} flaky) x ${REPEATS} repeats a night, noise profile realistic, simulated from the emulator's noise model;`,
    `${SEEDS} histories of ${NIGHTS} null nights, ${SEEDS} per change (a change from night ${START + 1}, looked for each of the ${MORNINGS} mornings after).`,
    '',
  ];
  if (only('null')) lines.push(...nullSection(texts), '');
  const notes: string[] = [];
  lines.push('| change | metric | found within 1 night | within 3 nights | within 10 nights | median nights to find it |', '|---|---|---|---|---|---|');
  for (const scenario of SCENARIOS.filter((c) => only(c.name))) {
    const { row, note } = scenarioRow(texts, scenario);
    lines.push(row);
    notes.push(...note);
  }
  if (only('older')) lines.push('', olderStepRow(texts));
  lines.push('', ...notes.map((m) => `- ${m}`));
  lines.push('', `${((performance.now() - started) / 1000).toFixed(0)} s, load ${load()} (at the end).`);
  process.stdout.write(`${lines.join('\n')}\n`);
  saveCache();
  if (args.write) writeSection(lines);
}

/** Null nights: false change points per metric, over SEEDS histories of 90 nights. */
function nullSection(texts: readonly string[]): string[] {
  const falses = new Map<SeriesMetric, number[]>(SERIES_METRICS.map((m) => [m, []]));
  for (let s = 0; s < SEEDS; s++) {
    const values = history(texts, `${args.seed}/null/${s}`, NIGHTS, () => ({}));
    const found = detectChanges(nightsOf(NIGHTS), series(values), Number(args.seed) * 1000 + s).changes;
    for (const m of SERIES_METRICS) falses.get(m)!.push(found.filter((c) => c.metric === m).length);
    process.stderr.write(`\rnull: ${s + 1}/${SEEDS}   `);
  }
  process.stderr.write('\n');
  return [
    `| metric | null histories with no false change point | with more than 1 | false change points in all |`,
    '|---|---|---|---|',
    ...SERIES_METRICS.map((m) => {
      const f = falses.get(m)!;
      const none = f.filter((x) => x === 0).length;
      const many = f.filter((x) => x > 1).length;
      return `| ${m} | ${none}/${SEEDS} = ${wilson(none, SEEDS)} | ${many}/${SEEDS} = ${wilson(many, SEEDS)} | ${f.reduce((a, b) => a + b, 0)} in ${SEEDS * NIGHTS} nights |`;
    }),
  ];
}

/** One change's row of the table, and notes: its misses told apart and, for a step, where it is placed later. */
function scenarioRow(texts: readonly string[], scenario: Scenario): { row: string; note: string[] } {
  const delays: Array<number | null> = [];
  let early = 0;
  let missed = 0;
  const late = [0, 0];
  for (let s = 0; s < SEEDS; s++) {
    const values = history(texts, `${args.seed}/${scenario.name}/${s}`, START + MORNINGS, scenario.at);
    const seed = Number(args.seed) * 1000 + s;
    const d = delay(values, scenario.metrics, seed);
    delays.push(d.seen);
    if (d.seen === null || d.seen > scenario.within) {
      missed++;
      if (d.early !== null && d.early <= scenario.within) early++;
    }
    if (scenario.within === 3) [4, 5].forEach((morning, i) => (late[i]! += placedLate(values, scenario.metrics, seed, morning, morning - 3) ? 1 : 0));
    process.stderr.write(`\r${scenario.name}: ${s + 1}/${SEEDS}   `);
  }
  process.stderr.write('\n');
  const within = (k: number) => {
    const x = delays.filter((d) => d !== null && d <= k).length;
    return `${x}/${SEEDS} = ${wilson(x, SEEDS)}`;
  };
  const sorted = delays.map((d) => d ?? Infinity).sort((a, b) => a - b);
  const median = sorted[Math.floor((SEEDS - 1) / 2)]!;
  const note = [`${scenario.name}: ${missed} not found within ${scenario.within} nights, of them ${early} found but placed before night ${START - 1} on one of those mornings, ${missed - early} not found at all`];
  if (scenario.within === 3) note.push(`${scenario.name}: placed after its first night (night ${START + 1}) on morning 4 in ${late[0]}/${SEEDS}, 2 or more nights after it on morning 5 in ${late[1]}/${SEEDS}`);
  return { row: `| ${scenario.name} | ${scenario.metrics.join(' or ')} | ${within(1)} | ${within(3)} | ${within(10)} | ${Number.isFinite(median) ? median : `> ${MORNINGS}`} |`, note };
}

/** An older step, far from the newest nights: latency x OLD_FACTOR from night OLD_START + 1 of 90, looked at once. */
const OLD_START = 60;
const OLD_FACTOR = 1.1;

/** How often the older step is found within 2 nights of its first night (what a long history shows of it). */
function olderStepRow(texts: readonly string[]): string {
  let found = 0;
  const metrics: SeriesMetric[] = ['latency p50', 'latency p90'];
  for (let s = 0; s < SEEDS; s++) {
    const values = history(texts, `${args.seed}/older step x${OLD_FACTOR}/${s}`, NIGHTS, (i) => (i >= OLD_START ? { latencyFactor: OLD_FACTOR } : {}));
    const changes = detectChanges(nightsOf(NIGHTS), series(values).filter((x) => metrics.includes(x.metric)), Number(args.seed) * 1000 + s).changes;
    if (changes.some((c) => Math.abs(c.night - OLD_START) <= 2)) found++;
    process.stderr.write(`\rolder step: ${s + 1}/${SEEDS}   `);
  }
  process.stderr.write('\n');
  return `Latency x${OLD_FACTOR} from night ${OLD_START + 1} of ${NIGHTS}, looked at once on the last: a change point of latency p50 or p90 within 2 nights of its first night in ${found}/${SEEDS} = ${wilson(found, SEEDS)}.`;
}

/** On this morning, the metric's change points near the change (night START - 1 or later) all lie `by` nights or more after its first night. */
function placedLate(values: readonly NightValues[], metrics: readonly SeriesMetric[], seed: number, morning: number, by: number): boolean {
  const upTo = values.slice(0, START + morning);
  const near = detectChanges(nightsOf(upTo.length), series(upTo).filter((s) => metrics.includes(s.metric)), seed).changes.filter((c) => c.night >= START - 2);
  return near.length > 0 && near.every((c) => c.night >= START + by);
}

/** Whether the last `look` nights differ from the START before them: two-sided permutation test at 5%, 199 shuffles. */
function oracleFinds(x: readonly number[], look: number, seed: number): boolean {
  const rng = mulberry32(seed);
  const gap = (v: readonly number[]) => Math.abs(v.slice(START).reduce((a, b) => a + b, 0) / look - v.slice(0, START).reduce((a, b) => a + b, 0) / START);
  const observed = gap(x);
  const y = x.slice();
  let atLeast = 0;
  for (let r = 0; r < 199; r++) {
    for (let i = y.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [y[i], y[j]] = [y[j]!, y[i]!];
    }
    if (gap(y) >= observed * (1 - 1e-9)) atLeast++;
  }
  return (atLeast + 1) / 200 <= 0.05;
}

/** The oracle's catch rates (--oracle), on the histories the benchmark simulates for this seed. */
function oracle(): void {
  const texts = questionTexts();
  for (const [scenario, look] of [[SCENARIOS[1]!, 3], [SCENARIOS[2]!, 10]] as const) {
    let found = 0;
    for (let s = 0; s < SEEDS; s++) {
      const values = history(texts, `${args.seed}/${scenario.name}/${s}`, START + look, scenario.at);
      const log = scenario.metrics[0] !== 'pass rate';
      if (scenario.metrics.some((m) => oracleFinds(values.map((v) => (log ? Math.log(v[m]!) : v[m]!)), look, Number(args.seed) * 1000 + s))) found++;
    }
    process.stdout.write(`| ${scenario.name} | the change's first night known, one look on morning ${look} | ${found}/${SEEDS} = ${wilson(found, SEEDS)} |\n`);
  }
  process.stdout.write(`load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (at the end)\n`);
}

/** Writes this seed's section of RESULTS.md (its own, after the pairs' results), replacing an older one. */
function writeSection(lines: readonly string[]): void {
  const file = path.join('bench', 'nights', 'RESULTS.md');
  const text = readFileSync(file, 'utf8');
  const head = `## Series (\`--series\`): ${QUESTIONS} questions x ${REPEATS}, seed ${args.seed}`;
  const at = text.indexOf(head);
  const next = at < 0 ? -1 : text.indexOf('\n## ', at + head.length);
  const before = at < 0 ? `${text.trimEnd()}\n\n` : text.slice(0, at);
  const after = next < 0 ? '' : text.slice(next + 1);
  writeFileSync(file, `${before}${head}\n\n${lines.join('\n')}\n${after ? `\n${after}` : ''}`);
}

if (args.oracle) oracle();
else main();
