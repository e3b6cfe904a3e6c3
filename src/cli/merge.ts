import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { ExitCode } from '../errors/exit-codes.js';
import { mergeShards, type MergedRun } from '../store/merge.js';
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

/** The whole `dsbench merge` command without yargs: returns the exit code. */
export function runMerge(args: MergeArgs, stdout: CliOutput = process.stdout, stderr: CliOutput = process.stderr): number {
  const merged = mergeShards({
    sources: args.databases,
    into: args.into,
    allowPartial: args.allowPartial,
    log: (message) => stderr.write(`dsbench: ${message}\n`),
  });
  if (args.json) stdout.write(`${JSON.stringify({ into: args.into, runs: merged }, null, 2)}\n`);
  else for (const run of merged) stdout.write(describe(run, args.into));
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
