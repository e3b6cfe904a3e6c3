import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { DEFAULT_DB, openResults } from '../report/open.js';
import { fmtCredits, safeJson, textTable } from '../report/tables.js';
import { comparedVerdictWord, verdictWord } from '../model/verdict.js';
import { type RunSummary, listRuns, runVersionsText } from '../store/queries.js';
import { type GlobalArgs, pathOption } from './global-options.js';
import { commandUsage } from './command-usage.js';
import { runsDeleteCommand } from './runs-delete.js';
import { runsPruneCommand } from './runs-prune.js';
import type { CliOutput, CommandContext } from './io.js';
import { textWidthFor } from './text-width.js';

export interface RunsArgs {
  db: string;
  limit: number;
  suite?: string | undefined;
  json?: boolean | undefined;
}

/** `completed 8, error 1, pending 3`: outcomes by count, most frequent first. */
export function outcomeText(outcomes: Record<string, number>): string {
  return Object.entries(outcomes)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
}

/** `2/4` for a shard, `merged 4/4` for the run merged from shards, with `PARTIAL` when shards were missing. */
export function splitText(split: RunSummary['split']): string {
  if (!split) return '';
  if (split.shardIndex !== null) return `${split.shardIndex}/${split.shardCount}`;
  return `merged ${split.shards.length}/${split.shardCount}${split.partial ? ' PARTIAL' : ''}`;
}

/** `2026-11-29 19:36:47` for the ISO time a run started: to the second, with a space a narrow table can wrap at. */
function startedText(iso: string): string {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(iso) ? iso.slice(0, 19).replace('T', ' ') : iso;
}

export function runsTable(runs: readonly RunSummary[], width?: number): string {
  // The shard column only where some run was split, so the usual listing keeps its width.
  const split = runs.some((r) => r.split);
  const reruns = runs.some((r) => r.rerunOf !== null);
  // A confirmation's items are its own kind of attempt: the run they confirm is named, never counted with it.
  const confirms = runs.some((r) => r.confirmOf !== null);
  return textTable({
    headers: ['id', 'label', 'suite', 'targets', 'version', 'started (UTC)', 'status', 'verdict', 'items', 'outcomes', 'checks', 'credits', ...(split ? ['shard'] : []), ...(reruns ? ['rerun of'] : []), ...(confirms ? ['confirm of'] : [])],
    align: ['right', 'left', 'left', 'left', 'left', 'left', 'left', 'left', 'right', 'left', 'left', 'right', 'left', 'left', 'left'],
    rows: runs.map((r) => [
      String(r.id),
      r.label ?? '',
      r.suiteName,
      r.targets.join(',') + (r.emulated ? ' (emulated)' : ''),
      runVersionsText(r.productVersions),
      startedText(r.startedAt),
      r.status,
      // A run still running (or killed) has no verdict yet; one that asked nothing is no night at all.
      r.status === 'running' ? '' : `${r.nothingAsked ? 'NOTHING ASKED: ' : ''}${verdictWord(r.exitCode)} (exit ${r.exitCode})${comparedText(r.comparedExit)}`,
      String(r.items),
      outcomeText(r.outcomes),
      r.checks.passed + r.checks.failed === 0 ? '' : `${r.checks.failed} of ${r.checks.passed + r.checks.failed} failed`,
      fmtCredits(r.credits),
      ...(split ? [splitText(r.split)] : []),
      ...(reruns ? [r.rerunOf === null ? '' : String(r.rerunOf)] : []),
      ...(confirms ? [r.confirmOf === null ? '' : String(r.confirmOf)] : []),
    ]),
  }, width);
}

/** The whole `dsbench runs` command without yargs: returns the exit code. */
export async function runRuns(args: RunsArgs, stdout: CliOutput = process.stdout, width?: number): Promise<number> {
  if (!(Number.isInteger(args.limit) && args.limit > 0)) throw new UsageError('--limit must be a positive whole number');
  const store = openResults(args.db);
  try {
    const runs = listRuns(store.db, { limit: args.limit, suite: args.suite });
    if (args.json) stdout.write(safeJson(runs));
    else if (runs.length === 0) stdout.write(args.suite ? `No runs of suite ${args.suite} in ${args.db}.\n` : `No runs in ${args.db}.\n`);
    else stdout.write(runsTable(runs, width));
    return ExitCode.ok;
  } finally {
    store.close();
  }
}

export const runsCommand = (cli: CommandContext): CommandModule<GlobalArgs, RunsArgs & GlobalArgs> => ({
  ...commandUsage.runs,
  builder: (y: Argv<GlobalArgs>) =>
    y
      .command(runsDeleteCommand(cli))
      .command(runsPruneCommand(cli))
      .option('db', { ...pathOption(cli), type: 'string', default: DEFAULT_DB, describe: 'Results database' })
      .option('limit', { type: 'number', default: 20, describe: 'Most runs to list' })
      .option('suite', { type: 'string', describe: 'Only runs of this suite' })
      .check((argv) => {
        if (!(Number.isInteger(argv.limit) && argv.limit > 0)) throw new UsageError('--limit must be a positive whole number');
        return true;
      }) as unknown as Argv<RunsArgs & GlobalArgs>,
  handler: async (argv: ArgumentsCamelCase<RunsArgs & GlobalArgs>) => {
    const code = await runRuns(argv, cli.stdout, textWidthFor(cli));
    if (code !== ExitCode.ok) cli.exitCode = code;
  },
});

/** The night's verdict against its baseline, beside its own, when it had one (what window:K and bless read). */
function comparedText(code: number | null): string {
  return code === null ? '' : `; vs baseline ${comparedVerdictWord(code)}`;
}
