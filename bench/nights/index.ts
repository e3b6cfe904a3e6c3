import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadSuite } from '../../src/config/load-suite.js';
import { compareRuns } from '../../src/report/compare/compare.js';
import { DEFAULT_THRESHOLDS, type Thresholds, verdictOf } from '../../src/report/compare/gates.js';
import { night, SCENARIOS, suiteText, wilson } from './nights-lib.js';

// The change-point benchmarks, each reading its own options: 90 nights' series (series.ts) and the time of
// `report --history 90 --detect` on a generated database (detect-speed.ts).
for (const [flag, module] of [['--series', './series.js'], ['--detect-speed', './detect-speed.js']] as const) {
  if (!process.argv.includes(flag)) continue;
  process.argv.splice(process.argv.indexOf(flag), 1);
  await import(module);
  process.exit(0);
}

// The nights benchmark: how often the comparison of two nights goes red, on the emulator's realistic
// noise profile (random errors, flaky answers, latency effects per question and per night).
// - null pairs: two nights of one unchanged service; every red one is a false alarm;
// - regressions: the second night has errors at 30% instead of 4%, flaky questions always failing, or
//   latency x1.6; every green one is a miss.
// Each night is a real run (the runner against an emulator with a new seed) recorded in SQLite, and each
// pair is judged by `compare` with the default gates and with --max-latency-regression 25% --fail-on
// new-errors,pass-rate,search-verdicts (the README's nightly command before window:3).
// Usage: node --import tsx bench/nights/index.ts [--null N] [--regressed N] [--seed S] [--quick] [--default-only] [--write]
// With --series: the change-point benchmark over 90 nights instead (series.ts).
// With --confirm: the second look before red (bench/nights/confirm.ts), each candidate night confirmed;
// --baseline-repeats R asks each baseline night R times a question; --baseline-window K pools K baseline
// nights as `window:K` (the nightly flow's `run --baseline window:K --confirm`).

const { values: args } = parseArgs({
  options: {
    null: { type: 'string', default: '200' },
    regressed: { type: 'string', default: '100' },
    seed: { type: 'string', default: '1' },
    questions: { type: 'string', default: '30' },
    flaky: { type: 'string', default: '10' },
    repeats: { type: 'string', default: '2' },
    quick: { type: 'boolean', default: false },
    /** Only the scenarios whose name contains this. */
    only: { type: 'string' },
    /** Print each red (or, for regressions, green) pair's gate details. */
    verbose: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
    /** Judge each pair with the default gates only, not also with latency 25% and search verdicts (half the comparing). */
    'default-only': { type: 'boolean', default: false },
    /** The confirmation mode (bench/nights/confirm.ts). */
    confirm: { type: 'boolean', default: false },
    /** --confirm: the confirmation's budget (items, or a percentage of the run's) and its false-alarm rate. */
    'confirm-budget': { type: 'string', default: '10%' },
    'confirm-alpha': { type: 'string', default: '1%' },
    /** --confirm: each baseline night asked with this many repeats (a release run blessed once), the candidates with --repeats. */
    'baseline-repeats': { type: 'string' },
    /** --confirm: each baseline K nights of the unchanged service pooled as `window:K`. */
    'baseline-window': { type: 'string' },
  },
});
const CONFIGS: Record<string, Thresholds> = {
  'dsbench compare a b': DEFAULT_THRESHOLDS,
  // The README's nightly gate until it moved to --baseline window:3 --confirm (RESULTS.md's "README nightly").
  'latency 25%, search verdicts': { ...DEFAULT_THRESHOLDS, latency: 0.25, failOn: new Set(['new-errors', 'pass-rate', 'search-verdicts']) },
};
const NULL_PAIRS = args.quick ? 10 : Number(args.null);
const REGRESSED_PAIRS = args.quick ? 5 : Number(args.regressed);
const QUESTIONS = Number(args.questions);
const FLAKY = Number(args.flaky);
const REPEATS = Number(args.repeats);
interface Tally {
  red: number;
  /** Not red, but a gate near its limit (exit 11, "settle it with dsbench confirm"). */
  suspect: number;
  pairs: number;
  gates: Map<string, number>;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-nights-'));
  const started = performance.now();
  try {
    const file = path.join(dir, 'nights.yaml');
    writeFileSync(file, suiteText(QUESTIONS, FLAKY, REPEATS));
    const suite = await loadSuite(file);
    const db = path.join(dir, 'nights.db');
    const tallies = new Map<string, Tally>();
    for (const [scenario, regression] of Object.entries(SCENARIOS).filter(([name]) => args.only === undefined || name.includes(args.only))) {
      const pairs = regression === null ? NULL_PAIRS : REGRESSED_PAIRS;
      for (let i = 0; i < pairs; i++) {
        const seed = `${args.seed}/${scenario}/${i}`;
        const b = await night(suite, db, `${seed}/a`, null);
        const c = await night(suite, db, `${seed}/b`, regression);
        for (const [config, thresholds] of Object.entries(CONFIGS).filter(([name]) => !args['default-only'] || name === 'dsbench compare a b')) {
          const out = path.join(dir, 'compare');
          const r = await compareRuns({ baseline: { db, run: String(b) }, candidate: { db, run: String(c) }, out, thresholds });
          const key = `${scenario}\u0000${config}`;
          const t = tallies.get(key) ?? { red: 0, suspect: 0, pairs: 0, gates: new Map<string, number>() };
          t.pairs++;
          if (r.summary.failed) t.red++;
          else if (verdictOf(r.summary) === 'suspect') t.suspect++;
          if (args.verbose && r.summary.failed === (regression === null)) {
            const lat = r.summary.metrics[0]!;
            process.stderr.write(`\n${scenario} pair ${i} (${config}): ${r.summary.failed ? "red" : "green"}; latency medians ${lat.baselineMedian} -> ${lat.candidateMedian}, n ${lat.n}\n${r.summary.gates.map((g) => `  ${g.name}: ${g.detail}`).join('\n')}\n`);
          }
          for (const g of r.summary.gates.filter((g) => g.enabled && g.failed)) t.gates.set(g.name, (t.gates.get(g.name) ?? 0) + 1);
          tallies.set(key, t);
          rmSync(out, { recursive: true, force: true });
        }
        process.stderr.write(`\r${scenario}: ${i + 1}/${pairs}   `);
      }
      process.stderr.write('\n');
    }
    const lines = [
      `Nights benchmark, seed ${args.seed}: ${QUESTIONS} questions (${FLAKY} flaky) x ${REPEATS} repeats a night, noise profile realistic;`,
      `${NULL_PAIRS} null pairs, ${REGRESSED_PAIRS} pairs per regression; ${((performance.now() - started) / 1000).toFixed(0)} s, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}.`,
      '',
      '| scenario | command | red (95% Wilson interval) | suspect, not red | gates that fired |',
      '|---|---|---|---|---|',
      ...[...tallies].map(([key, t]) => {
        const [scenario, config] = key.split('\u0000');
        const gates = [...t.gates].map(([g, n]) => `${g} ${n}`).join(', ') || '–';
        return `| ${scenario} | ${config} | ${t.red}/${t.pairs} = ${wilson(t.red, t.pairs)} | ${t.suspect}/${t.pairs} | ${gates} |`;
      }),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (args.write && !args.quick) writeFileSync(path.join('bench', 'nights', 'RESULTS.md'), `# Nights benchmark\n\n${lines.join('\n')}\n`);
  } finally {
    if (process.env.NIGHTS_KEEP) process.stderr.write(`kept ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

function optionalCount(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a whole number of at least 1, got ${text}`);
  return n;
}

if (args.confirm) {
  const { confirmBench } = await import('./confirm.js');
  await confirmBench({ nullPairs: NULL_PAIRS, regressedPairs: REGRESSED_PAIRS, questions: QUESTIONS, flaky: FLAKY, repeats: REPEATS, seed: args.seed, only: args.only, verbose: args.verbose, write: args.write && !args.quick, budget: args['confirm-budget'], alpha: args['confirm-alpha'], baselineRepeats: optionalCount(args['baseline-repeats']), baselineWindow: optionalCount(args['baseline-window']) });
} else await main();
