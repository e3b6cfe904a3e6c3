import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { NothingToCompareError, UsageError } from '../errors/errors.js';
import type { Env } from '../config/credentials.js';
import { ExitCode } from '../errors/exit-codes.js';
import { DEFAULT_BOOTSTRAP } from '../stats/bootstrap.js';
import { compareRuns } from '../report/compare/compare.js';
import { compareJson } from '../report/compare/compare-json.js';
import { DEFAULT_THRESHOLDS, FAIL_ON, type Thresholds, parseFailOn, parsePercent } from '../report/compare/gates.js';
import { DEFAULT_DB } from '../report/open.js';
import { safeJson } from '../report/tables.js';
import { type GlobalArgs, pathOption } from './global-options.js';
import { commandUsage } from './command-usage.js';
import type { CliOutput, CommandContext } from './io.js';
import { textWidthFor } from './text-width.js';

export interface CompareArgs {
  baseline: string;
  candidate?: string | undefined;
  db: string;
  baselineDb?: string | undefined;
  targets?: string | undefined;
  out?: string | undefined;
  format?: string | undefined;
  maxLatencyRegression?: string | undefined;
  maxCreditsRegression?: string | undefined;
  maxTokensRegression?: string | undefined;
  maxToolCallsRegression?: string | undefined;
  maxPassRateDrop?: string | undefined;
  maxErrorRateRise?: string | undefined;
  failOn?: string | undefined;
  minPairs?: number | undefined;
  resamples?: number | undefined;
  confidence?: number | undefined;
  seed?: number | undefined;
  bom?: boolean | undefined;
  html?: boolean | undefined;
  junit?: string | undefined;
  includeEdited?: boolean | undefined;
  json?: boolean | undefined;
  judge?: boolean | undefined;
  suite?: string | undefined;
  maxLossRate?: string | undefined;
  maxScoreDrop?: number | undefined;
  maxCitationValidityDrop?: string | undefined;
}

/** The flags `compare` and `run --baseline` judge a comparison by. */
export type GateArgs = Pick<
  CompareArgs,
  'maxLatencyRegression' | 'maxCreditsRegression' | 'maxTokensRegression' | 'maxToolCallsRegression' | 'maxPassRateDrop' | 'maxErrorRateRise' | 'failOn' | 'minPairs' | 'resamples' | 'confidence' | 'seed'
>;

const pctText = (f: number | null): string => (f === null ? 'off' : `${+(f * 100).toFixed(6)}%`);

export function thresholdsFrom(args: GateArgs): Thresholds {
  const percent = (value: string | undefined, flag: string, fallback: number | null): number | null => (value === undefined ? fallback : parsePercent(value, flag));
  const minPairs = args.minPairs ?? DEFAULT_THRESHOLDS.minPairs;
  if (!(Number.isInteger(minPairs) && minPairs >= 1)) throw new UsageError('--min-pairs must be a whole number of at least 1');
  return {
    latency: percent(args.maxLatencyRegression, '--max-latency-regression', DEFAULT_THRESHOLDS.latency),
    credits: percent(args.maxCreditsRegression, '--max-credits-regression', DEFAULT_THRESHOLDS.credits),
    tokens: percent(args.maxTokensRegression, '--max-tokens-regression', DEFAULT_THRESHOLDS.tokens),
    toolCalls: percent(args.maxToolCallsRegression, '--max-tool-calls-regression', DEFAULT_THRESHOLDS.toolCalls),
    passRateDrop: percent(args.maxPassRateDrop, '--max-pass-rate-drop', DEFAULT_THRESHOLDS.passRateDrop) ?? 1,
    errorRateRise: percent(args.maxErrorRateRise, '--max-error-rate-rise', DEFAULT_THRESHOLDS.errorRateRise) ?? 1,
    minPairs,
    failOn: args.failOn === undefined ? DEFAULT_THRESHOLDS.failOn : parseFailOn(args.failOn),
  };
}

export function bootstrapFrom(args: GateArgs) {
  const resamples = args.resamples ?? DEFAULT_BOOTSTRAP.resamples;
  const confidence = args.confidence ?? DEFAULT_BOOTSTRAP.confidence * 100;
  const seed = args.seed ?? DEFAULT_BOOTSTRAP.seed;
  if (!(Number.isInteger(resamples) && resamples >= 100 && resamples <= 1_000_000)) throw new UsageError('--resamples must be a whole number from 100 to 1000000');
  if (!(confidence > 50 && confidence < 100)) throw new UsageError('--confidence is a percentage between 50 and 100 (e.g. 95)');
  if (!Number.isInteger(seed)) throw new UsageError('--seed must be a whole number');
  return { resamples, confidence: confidence / 100, seed };
}

function parseTargets(text: string | undefined): [string, string] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',').map((t) => t.trim());
  if (parts.length !== 2 || !parts[0] || !parts[1]) throw new UsageError('--targets takes two target names: --targets baseline,candidate');
  return [parts[0], parts[1]];
}

/** The whole `dsbench compare` command without yargs: returns the exit code (1 when a gate failed). */
export async function runCompare(args: CompareArgs, stdout: CliOutput = process.stdout, env: Env = process.env): Promise<number> {
  const targets = parseTargets(args.targets);
  const baseline = String(args.baseline);
  let candidate = args.candidate === undefined ? undefined : String(args.candidate);
  if (candidate === undefined) {
    if (!targets) throw new UsageError('give a baseline and a candidate run (e.g. dsbench compare nightly~1 nightly), or one run and --targets a,b');
    if (args.baselineDb !== undefined) throw new UsageError('with --baseline-db, name the candidate run too');
    candidate = baseline;
  }
  const format = (args.format ?? (args.json ? 'json' : 'text')).toLowerCase();
  if (!['text', 'md', 'json'].includes(format)) throw new UsageError(`--format ${format} is not one of text, md, json`);
  const result = await compareRuns({
    baseline: { db: args.baselineDb ?? args.db, run: baseline, target: targets?.[0] },
    candidate: { db: args.db, run: candidate, target: targets?.[1] },
    out: args.out,
    thresholds: thresholdsFrom(args),
    bootstrap: bootstrapFrom(args),
    bom: args.bom,
    html: args.html,
    junit: args.junit,
    includeEdited: args.includeEdited,
    textWidth: textWidthFor({ stdout, env }),
  });
  const judging = args.judge ? await import('./compare-judge.js') : undefined;
  const pairwise = judging
    ? await judging.judgePairs(
        result.baseline,
        result.candidate,
        {
          maxLossRate: args.maxLossRate === undefined ? null : parsePercent(args.maxLossRate, '--max-loss-rate'),
          maxScoreDrop: args.maxScoreDrop ?? null,
          maxCitationValidityDrop: args.maxCitationValidityDrop === undefined ? null : parsePercent(args.maxCitationValidityDrop, '--max-citation-validity-drop'),
        },
        bootstrapFrom(args),
        await judging.guidingSuite(args.suite, result.candidate),
        env,
        result.summary.outcomes,
      )
    : undefined;
  if (pairwise) result.addPairwise({ result: pairwise.result, failedGates: pairwise.failedGates }, pairwise.text);
  if (format === 'json') stdout.write(safeJson(compareJson(result, pairwise)));
  else stdout.write((format === 'md' ? result.markdown : result.text) + (pairwise?.text ?? ''));
  if (result.summary.failed || (pairwise && pairwise.failedGates.length > 0)) return ExitCode.expectationsFailed;
  // A comparison with nothing (or too little) to judge must not pass: printed as it is, then exit 8.
  if (result.nothingCompared) throw new NothingToCompareError(result.nothingCompared);
  return result.verdict === 'suspect' ? ExitCode.suspect : ExitCode.ok;
}

/** The gate flags, as `compare` and `run --baseline` take them. */
export const GATE_OPTIONS = {
  'max-latency-regression': { type: 'string', default: pctText(DEFAULT_THRESHOLDS.latency), describe: 'Largest median latency increase tolerated (server time, else wall time), or off' },
  'max-credits-regression': { type: 'string', default: pctText(DEFAULT_THRESHOLDS.credits), describe: 'Largest median credits increase tolerated, or off' },
  'max-tokens-regression': { type: 'string', default: pctText(DEFAULT_THRESHOLDS.tokens), describe: 'Largest median total-tokens increase tolerated, or off' },
  'max-tool-calls-regression': { type: 'string', default: pctText(DEFAULT_THRESHOLDS.toolCalls), describe: 'Largest median tool-calls increase tolerated, or off' },
  'max-pass-rate-drop': { type: 'string', default: pctText(DEFAULT_THRESHOLDS.passRateDrop), describe: 'Largest drop of the pass rate and pass^k (percentage points) tolerated even when significant (--fail-on pass-rate, pass-k)' },
  'max-error-rate-rise': { type: 'string', default: pctText(DEFAULT_THRESHOLDS.errorRateRise), describe: 'Largest rise of the error rate (percentage points) tolerated even when significant (--fail-on new-errors)' },
  'fail-on': { type: 'string', default: [...DEFAULT_THRESHOLDS.failOn].join(','), describe: `Events that fail the comparison: ${FAIL_ON.join(', ')}, or none` },
  'min-pairs': { type: 'number', default: DEFAULT_THRESHOLDS.minPairs, describe: 'Fewest comparable pairs for a metric to be judged' },
  'resamples': { type: 'number', default: DEFAULT_BOOTSTRAP.resamples, describe: 'Bootstrap resamples' },
  'confidence': { type: 'number', default: DEFAULT_BOOTSTRAP.confidence * 100, describe: 'Confidence level of the intervals, in percent' },
  'seed': { type: 'number', default: DEFAULT_BOOTSTRAP.seed, describe: 'Seed of the bootstrap (same seed, same intervals)' },
} as const;

export const compareCommand = (cli: CommandContext): CommandModule<GlobalArgs, CompareArgs & GlobalArgs> => ({
  ...commandUsage.compare,
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('baseline', { type: 'string', demandOption: true, describe: 'Baseline run: id, label, latest; ~N goes N runs back (nightly~1)' })
      .positional('candidate', { type: 'string', describe: 'Candidate run (default with --targets: the baseline run)' })
      .option('db', { ...pathOption(cli), type: 'string', default: DEFAULT_DB, describe: 'Results database of the candidate (and of the baseline without --baseline-db)' })
      .option('baseline-db', { ...pathOption(cli), type: 'string', describe: 'Results database of the baseline, when it is another file' })
      .option('targets', { type: 'string', describe: 'Compare target a of the baseline with target b of the candidate: --targets a,b' })
      .option('out', { ...pathOption(cli), type: 'string', describe: 'Output folder (default results/compare-<baseline>-vs-<candidate>)' })
      .option('format', { type: 'string', choices: ['text', 'md', 'json'], describe: 'What to print: text (default), md (for $GITHUB_STEP_SUMMARY) or json' })
      .options(GATE_OPTIONS)
      .option('bom', { type: 'boolean', default: false, describe: 'Start compare.csv with a UTF-8 byte order mark (for Excel)' })
      .option('include-edited', { type: 'boolean', default: false, describe: 'Judge items edited under the same id (text, follow-ups or expectations changed) in the gates too; by default they are listed and judged by no gate' })
      .option('junit', { ...pathOption(cli), type: 'string', describe: 'Also write JUnit XML to FILE: a test case per gate and per pair, failing as the gates do' })
      .option('judge', { type: 'boolean', default: false, describe: 'Also ask the judge which answer of each pair is better, in both orders (docs/grading.md)' })
      .option('suite', { ...pathOption(cli), type: 'string', describe: "With --judge: the suite whose rubrics, reference answers and judge settings guide the judge (default: the candidate run's own file, if still there)" })
      .option('max-loss-rate', { type: 'string', describe: 'With --judge: largest share of pairs the candidate may lose, e.g. 20%; fails when the loss rate\'s interval (over questions) is above it' })
      .option('max-score-drop', { type: 'number', describe: 'With --judge: largest drop of the mean judge score (0 to 1) over turns graded in both runs; fails when a test over questions says the drop is beyond noise and above it' })
      .option('max-citation-validity-drop', { type: 'string', describe: 'With --judge: largest drop of the citation validity rate, in points, e.g. 5%; fails when a test over questions says the drop is beyond noise and above it' })
      .option('html', { type: 'boolean', default: false, describe: 'Also write compare.html: charts of the deltas with their intervals and the answers side by side, offline' }) as unknown as Argv<CompareArgs & GlobalArgs>,
  handler: async (argv: ArgumentsCamelCase<CompareArgs & GlobalArgs>) => {
    const code = await runCompare(argv, cli.stdout, cli.env);
    if (code !== ExitCode.ok) cli.exitCode = code;
  },
});
