import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { HISTORY_SCHEMA_VERSION } from '../report/output-schemas.js';
import { UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { writeHistory } from '../report/history-report.js';
import { DEFAULT_DB } from '../report/open.js';
import { writeReport } from '../report/report.js';
import { reportJson } from '../report/report-json.js';
import type { ReportFormat } from '../report/report-result.js';
import { DEFAULT_TEXT_WIDTH, formatBytes, safeJson } from '../report/tables.js';
import { fillLines, wordsOf } from '../report/text-fit.js';
import { databaseBytes } from '../store/prune.js';
import { type GlobalArgs, pathOption } from './global-options.js';
import { commandUsage } from './command-usage.js';
import { checkPushUrl, PUSH_METRICS_OPTION, tellPush } from './push-metrics.js';
import type { CliOutput, CommandContext } from './io.js';
import { textWidthFor } from './text-width.js';

export interface ReportArgs {
  run?: string | undefined;
  db: string;
  out?: string | undefined;
  format: string;
  bom?: boolean | undefined;
  html?: boolean | undefined;
  junit?: string | undefined;
  pushMetrics?: string | undefined;
  history?: number | undefined;
  suite?: string | undefined;
  detect?: boolean | undefined;
  detectQuestions?: boolean | undefined;
  detectSeed?: number | undefined;
  json?: boolean | undefined;
  /** Clock for the quota projection (tests). */
  now?: Date | undefined;
}

const FORMATS: readonly ReportFormat[] = ['csv', 'md', 'json', 'html'];

/** `csv`, `md`, `json` or a comma list of them. */
export function parseFormats(text: string): Set<ReportFormat> {
  const parts = text
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter(Boolean);
  if (parts.length === 0) throw new UsageError(`--format needs one of ${FORMATS.join(', ')} (or a comma list of them)`);
  for (const p of parts) {
    if (!(FORMATS as readonly string[]).includes(p)) throw new UsageError(`--format ${p} is not one of ${FORMATS.join(', ')}`);
  }
  return new Set(parts as ReportFormat[]);
}

/** What stdout gets: Markdown when md was asked for, JSON for json (or --json), else the terminal summary. */
function stdoutKind(formats: ReadonlySet<ReportFormat>, json: boolean | undefined): 'md' | 'json' | 'text' {
  if (formats.has('md')) return 'md';
  if (json || formats.has('json')) return 'json';
  return 'text';
}

/** The database's size, so a nightly log shows it growing, and what keeps it small. */
function databaseLine(db: string, width = DEFAULT_TEXT_WIDTH): string {
  const words = [...wordsOf(`Database ${db}: ${formatBytes(databaseBytes(db))};`), '`dsbench runs prune --keep-last N`', ...wordsOf('removes older runs (docs/ci.md).')];
  return `\n${fillLines(words, width).join('\n')}\n`;
}

/** The whole `dsbench report` command without yargs: returns the exit code. */
export async function runReport(args: ReportArgs, stdout: CliOutput = process.stdout, stderr: CliOutput = process.stderr, textWidth?: number): Promise<number> {
  const formats = parseFormats(args.format);
  if (args.json) formats.add('json');
  if (args.html) formats.add('html');
  const kind = stdoutKind(formats, args.json);
  if (args.history !== undefined) {
    if (args.run !== undefined) throw new UsageError('give either a run or --history N, not both');
    if (args.junit !== undefined) throw new UsageError('--junit reports one run; it does not go with --history');
    if (args.pushMetrics !== undefined) throw new UsageError('--push-metrics pushes one run; it does not go with --history');
    if (args.detectSeed !== undefined && !args.detect && !args.detectQuestions) throw new UsageError('--detect-seed seeds --detect: add --detect (or --detect-questions)');
    const detect = args.detect || args.detectQuestions ? { questions: args.detectQuestions === true, seed: args.detectSeed ?? 1 } : undefined;
    const result = await writeHistory({ db: args.db, limit: args.history, suite: args.suite, out: args.out, formats, bom: args.bom, detect, textWidth });
    const json = { schemaVersion: HISTORY_SCHEMA_VERSION, suite: result.suite, rows: result.rows, nothingAsked: result.nothingAsked, ...(result.detection && { changePoints: result.detection }), files: result.files };
    stdout.write(kind === 'md' ? result.markdown : kind === 'json' ? safeJson(json) : result.text);
    return ExitCode.ok;
  }
  if (args.suite !== undefined) throw new UsageError('--suite goes with --history N');
  if (args.detect || args.detectQuestions || args.detectSeed !== undefined) throw new UsageError('--detect looks for change points over nights: it goes with --history N (e.g. --history 30 --detect)');
  checkPushUrl(args.pushMetrics);
  const result = await writeReport({ db: args.db, run: String(args.run ?? 'latest'), out: args.out, formats, bom: args.bom, now: args.now, junit: args.junit, pushMetrics: args.pushMetrics, textWidth });
  stdout.write(kind === 'md' ? result.markdown : kind === 'json' ? safeJson(reportJson(result.data, result.files)) : result.text);
  if (kind !== 'json') stdout.write(databaseLine(args.db, textWidth));
  tellPush(result.pushed, stderr);
  return ExitCode.ok;
}

export const reportCommand = (cli: CommandContext): CommandModule<GlobalArgs, ReportArgs & GlobalArgs> => ({
  ...commandUsage.report,
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('run', { type: 'string', describe: 'Run id, label (its newest run) or latest (default)' })
      .option('db', { ...pathOption(cli), type: 'string', default: DEFAULT_DB, describe: 'Results database' })
      .option('out', { ...pathOption(cli), type: 'string', describe: 'Output folder (default results/report-<run id>, or results/history-<suite>)' })
      .option('format', {
        type: 'string',
        default: 'csv',
        describe: 'csv: CSV files and a terminal summary; md: report.md, printed (for $GITHUB_STEP_SUMMARY); json: report.json, printed; html: report.html. A comma list writes several',
      })
      .option('bom', { type: 'boolean', default: false, describe: 'Start CSV files with a UTF-8 byte order mark (for Excel)' })
      .option('html', { type: 'boolean', default: false, describe: 'Also write report.html (history.html with --history): one self-contained page with charts, opens offline' })
      .option('junit', { ...pathOption(cli), type: 'string', describe: 'Also write JUnit XML to FILE: a test case per item, failures with the checks\' reasons (for CI test reports)' })
      .option('push-metrics', PUSH_METRICS_OPTION)
      .option('history', { type: 'number', describe: 'Instead of one run: a trend over the last N runs of a suite (history.csv)' })
      .option('suite', { type: 'string', describe: 'With --history: the suite (default: the suite of the newest run)' })
      .option('detect', { type: 'boolean', describe: 'With --history: find change points in each metric\'s nightly series (suite and each tag), each with its size, interval and nearest version change' })
      .option('detect-questions', { type: 'boolean', describe: 'With --history: --detect, and for each question too' })
      .option('detect-seed', { type: 'number', describe: 'Seed of --detect\'s permutation tests (default 1)' })
      .check((argv) => {
        if (argv.history !== undefined && !(Number.isInteger(argv.history) && argv.history > 0)) throw new UsageError('--history must be a positive whole number of runs');
        if (argv.detectSeed !== undefined && !Number.isInteger(argv.detectSeed)) throw new UsageError(`--detect-seed must be a whole number, got ${String(argv.detectSeed)}`);
        parseFormats(String(argv.format));
        return true;
      }) as unknown as Argv<ReportArgs & GlobalArgs>,
  handler: async (argv: ArgumentsCamelCase<ReportArgs & GlobalArgs>) => {
    const code = await runReport(argv, cli.stdout, cli.stderr, textWidthFor(cli));
    if (code !== ExitCode.ok) cli.exitCode = code;
  },
});
