import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { ExitCode } from '../errors/exit-codes.js';
import { openResults } from '../report/open.js';
import { mergeShards, type MergedRun } from '../store/merge.js';
import { findRun } from '../store/queries.js';
import { runTally } from '../store/tallies.js';
import { type GlobalArgs, pathOption } from './global-options.js';
import { commandUsage } from './command-usage.js';
import type { CliOutput, CommandContext } from './io.js';

export interface MergeArgs {
  databases: string[];
  into: string;
  allowPartial: boolean;
  json?: boolean | undefined;
}

function describe(run: MergedRun, into: string): string {
  const name = run.groupLabel === '' ? `group ${run.groupId}` : `group ${run.groupLabel} (${run.groupId})`;
  const partial = run.partial ? `; PARTIAL: shard${run.missing.length === 1 ? '' : 's'} ${run.missing.join(', ')} missing` : '';
  const verb = run.alreadyMerged ? 'already merged as' : 'merged into';
  return `${name}: shards ${run.shards.join(', ')} of ${run.shardCount} ${verb} run ${run.runId} of ${into}, ${run.items} items, ${run.status}${partial}\n`;
}

/** A merged group's `--group-*` totals (kept in its options, the same in every shard) and the credits its shards spent. */
interface LimitsSpent {
  concurrency?: number | undefined;
  maxCredits?: number | undefined;
  creditsSpent: number | null;
}

function groupLimitsSpent(into: string, merged: readonly MergedRun[]): Array<LimitsSpent | undefined> {
  const store = openResults(into);
  try {
    return merged.map((run) => {
      const options = findRun(store.db, run.runId)?.options ?? {};
      const concurrency = options.groupConcurrency as number | undefined;
      const maxCredits = options.groupMaxCredits as number | undefined;
      if (concurrency === undefined && maxCredits === undefined) return undefined;
      const credits = Object.values(runTally(store.db, run.runId).targets).flatMap((t) => [t.credits, t.rerunAfterInterruption.credits]).filter((c): c is number => c !== null);
      return { concurrency, maxCredits, creditsSpent: credits.length === 0 ? null : credits.reduce((a, b) => a + b, 0) };
    });
  } finally {
    store.close();
  }
}

function limitsText(limits: LimitsSpent | undefined): string {
  if (!limits) return '';
  const spent = limits.creditsSpent === null ? 'no credits measured' : `${Math.round(limits.creditsSpent * 100) / 100} credits spent`;
  const cap = limits.maxCredits === undefined ? '' : ` of --group-max-credits ${limits.maxCredits}${limits.creditsSpent !== null && limits.creditsSpent > limits.maxCredits ? ' (over it by what was in flight when the shards reached their shares)' : ''}`;
  const conc = limits.concurrency === undefined ? '' : `; at most --group-concurrency ${limits.concurrency} conversations at once per target, shared by the shards`;
  return `  group limits: ${spent}${cap}${conc}\n`;
}

/** The whole `dsbench merge` command without yargs: returns the exit code. */
export function runMerge(args: MergeArgs, stdout: CliOutput = process.stdout, stderr: CliOutput = process.stderr): number {
  const merged = mergeShards({
    sources: args.databases,
    into: args.into,
    allowPartial: args.allowPartial,
    log: (message) => stderr.write(`dsbench: ${message}\n`),
  });
  const limits = groupLimitsSpent(args.into, merged);
  if (args.json) stdout.write(`${JSON.stringify({ into: args.into, runs: merged.map((run, i) => ({ ...run, ...(limits[i] && { groupLimits: limits[i] }) })) }, null, 2)}\n`);
  else merged.forEach((run, i) => stdout.write(describe(run, args.into) + limitsText(limits[i])));
  return ExitCode.ok;
}

export const mergeCommand = (cli: CommandContext): CommandModule<GlobalArgs, MergeArgs & GlobalArgs> => ({
  ...commandUsage.merge,
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('databases', { ...pathOption(cli), type: 'string', array: true, demandOption: true, describe: 'The shard databases (any order)' })
      .option('into', { ...pathOption(cli), type: 'string', demandOption: true, describe: 'Database to record the merged run in (created if missing)' })
      .option('allow-partial', { type: 'boolean', default: false, describe: 'Merge even with shards missing; the run is marked partial' }) as unknown as Argv<
      MergeArgs & GlobalArgs
    >,
  handler: (argv: ArgumentsCamelCase<MergeArgs & GlobalArgs>) => {
    const code = runMerge(argv, cli.stdout, cli.stderr);
    if (code !== ExitCode.ok) cli.exitCode = code;
  },
});
