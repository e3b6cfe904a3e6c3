import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { UsageError } from '../errors/errors.js';
import { DEFAULT_BOOTSTRAP } from '../stats/bootstrap.js';
import { DEFAULT_THRESHOLDS, parsePercent } from '../report/compare/gates.js';
import { DEFAULT_DB, inSnapshot, openResults, resolveRun } from '../report/open.js';
import { detectableAt, estimateNoise, questionsForLatency, questionsForPassRate } from '../report/plan.js';
import { runCounts } from '../store/queries.js';
import { itemQuality } from '../store/quality-queries.js';
import { commandUsage } from './command-usage.js';
import { type GlobalArgs, pathOption } from './global-options.js';
import type { CliOutput, CommandContext } from './io.js';
import { DEFAULT_TEXT_WIDTH } from '../report/tables.js';
import { wrapText } from '../report/text-fit.js';
import { textWidthFor } from './text-width.js';

export interface PlanArgs {
  baseline?: string | undefined;
  candidate?: string | undefined;
  db: string;
  detectLatency: string;
  detectPassRate: string;
  maxLatencyRegression: string;
  confidence: number;
  json?: boolean | undefined;
}

const pct = (x: number | null): string => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);

/** `dsbench plan`: how many questions x repeats a suite needs to detect a change, from two earlier runs' noise. */
export async function runPlan(args: PlanArgs, stdout: CliOutput = process.stdout, width = DEFAULT_TEXT_WIDTH): Promise<number> {
  const latency = parsePercent(args.detectLatency, '--detect-latency');
  const passRate = parsePercent(args.detectPassRate, '--detect-pass-rate');
  const threshold = parsePercent(args.maxLatencyRegression, '--max-latency-regression') ?? 0;
  if (!(args.confidence > 50 && args.confidence < 100)) throw new UsageError('--confidence is a percentage between 50 and 100 (e.g. 95)');
  const confidence = args.confidence / 100;
  const store = openResults(args.db);
  try {
    return await inSnapshot(store.db, async () => {
      const c = resolveRun(store.db, args.db, args.candidate ?? 'latest');
      const b = resolveRun(store.db, args.db, args.baseline ?? `${c.label ?? 'latest'}~1`);
      if (b.id === c.id) throw new UsageError(`plan needs two runs of the suite to measure its noise; ${args.db} has only run ${c.id} as ${args.baseline ?? 'the one before'}`);
      const noise = estimateNoise(store.db, b.id, c.id);
      const items = itemQuality(store.db, c.id);
      const questions = new Set(items.map((i) => `${i.target}\u0000${i.kind}\u0000${i.suiteItemId}`)).size;
      const repeats = questions === 0 ? 1 : Math.max(1, Math.round(items.length / questions));
      const now = detectableAt(noise, Math.max(1, questions), repeats, threshold, confidence);
      const table = [1, 2, 3, 5].map((r) => {
        const ql = noise.latency && latency !== null ? questionsForLatency(noise.latency, r, latency, threshold, confidence) : null;
        const qp = noise.passRate && passRate !== null ? questionsForPassRate(noise.passRate, r, passRate, confidence) : null;
        return { repeats: r, latency: ql, passRate: qp, both: ql === null && qp === null ? null : Math.max(ql ?? 0, qp ?? 0) };
      });
      const result = {
        baseline: b.id,
        candidate: c.id,
        suite: c.suiteName,
        confidence,
        power: 0.8,
        latencyThreshold: threshold,
        noise,
        current: { questions, repeats, turns: runCounts(store.db, c.id).turns, detectable: now },
        detect: { latency, passRate },
        table,
      };
      if (args.json) {
        stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        return 0;
      }
      const lines = [
        `dsbench plan: suite ${c.suiteName}, noise measured between runs ${b.id} and ${c.id} (${args.db})`,
        noise.latency
          ? `  latency: ${noise.latency.pairs} paired items over ${noise.latency.questions} questions; log-ratio sd between questions ${Math.sqrt(noise.latency.between).toFixed(3)}, between repeats ${Math.sqrt(noise.latency.within).toFixed(3)}`
          : '  latency: no item completed in both runs',
        noise.passRate
          ? `  pass rate: ${noise.passRate.questions} questions with two or more checked repeats; mean p(1-p) ${noise.passRate.variance.toFixed(3)}`
          : '  pass rate: no question with two checked repeats in a run (use --repeats 2 or more to measure it)',
        `Now (${questions} questions x ${repeats} repeats, the default gates at ${Math.round(confidence * 100)}% together, 80% power, latency threshold ${pct(threshold)}): detects latency +${pct(now.latency)} and a pass-rate drop of ${pct(now.passRate).replace('%', ' points')}.`,
        `  These figures are for a change that hits every question alike; a drop confined to a few questions is caught far less often (docs/statistics.md, "Planning a suite": at 30 x 2 a 50-point drop on a fifth of the questions is caught on about a quarter of nights).`,
        `To detect latency +${pct(latency)} and a pass-rate drop of ${pct(passRate).replace('%', ' points')}, questions needed:`,
        '  repeats  latency  pass rate  both',
        ...table.map((t) => `  ${String(t.repeats).padStart(7)}  ${String(t.latency ?? '–').padStart(7)}  ${String(t.passRate ?? '–').padStart(9)}  ${String(t.both ?? '–').padStart(4)}`),
        'Method and assumptions: docs/statistics.md, "Planning a suite".',
      ];
      stdout.write(`${wrapText(lines.join('\n'), width)}\n`);
      return 0;
    });
  } finally {
    store.close();
  }
}

export const planCommand = (cli: CommandContext): CommandModule<GlobalArgs, PlanArgs & GlobalArgs> => ({
  ...commandUsage.plan,
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('baseline', { type: 'string', describe: "A run to measure the noise against (default: the one before the candidate with the candidate's label)" })
      .positional('candidate', { type: 'string', describe: 'The newer run (default: latest)' })
      .option('db', { ...pathOption(cli), type: 'string', default: DEFAULT_DB, describe: 'Results database' })
      .option('detect-latency', { type: 'string', default: '30%', describe: 'The latency increase to detect' })
      .option('detect-pass-rate', { type: 'string', default: '10%', describe: 'The pass-rate drop to detect, in points' })
      .option('max-latency-regression', { type: 'string', default: `${(DEFAULT_THRESHOLDS.latency ?? 0) * 100}%`, describe: 'The latency threshold the comparison will use' })
      .option('confidence', { type: 'number', default: DEFAULT_BOOTSTRAP.confidence * 100, describe: 'Confidence level of the comparison, in percent' })
      .option('json', { type: 'boolean', default: false, describe: 'Print JSON' }) as unknown as Argv<PlanArgs & GlobalArgs>,
  handler: async (argv: ArgumentsCamelCase<PlanArgs & GlobalArgs>) => {
    await runPlan(argv, cli.stdout, textWidthFor(cli));
  },
});
