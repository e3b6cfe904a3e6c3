import { existsSync } from 'node:fs';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { DEFAULT_DB } from '../report/open.js';
import { formatBytes } from '../report/tables.js';
import { databaseBytes, planPrune, prune, type PruneRun } from '../store/prune.js';
import { openStore } from '../store/store.js';
import { type GlobalArgs, pathOption } from './global-options.js';
import type { CliOutput, CommandContext } from './io.js';

export interface RunsPruneArgs {
  db: string;
  keepLast: number;
  keepLabel?: string[] | undefined;
  keepBlessed?: boolean | undefined;
  dryRun?: boolean | undefined;
  yes?: boolean | undefined;
}

const runText = (r: PruneRun) => `run ${r.id}${r.label ? ` (${r.label})` : ''} of ${r.suiteName}, started ${r.startedAt}`;

/** `dsbench runs prune --keep-last N`: removes older runs and compacts the database. Returns the exit code. */
export function runRunsPrune(args: RunsPruneArgs, stdout: CliOutput): number {
  if (!(Number.isInteger(args.keepLast) && args.keepLast >= 0)) throw new UsageError('--keep-last must be a whole number of runs (0 or more)');
  if (!existsSync(args.db)) throw new UsageError(`no results database at ${args.db}; pass --db with the database's path.`);
  const keepLabels = args.keepLabel ?? [];
  if (args.keepLast === 0 && keepLabels.length === 0 && args.keepBlessed !== true && args.yes !== true && args.dryRun !== true) {
    throw new UsageError(`--keep-last 0 with no --keep-label or --keep-blessed removes every run in ${args.db}; add --yes to do it`);
  }
  const before = databaseBytes(args.db);
  const store = openStore(args.db);
  try {
    const plan = planPrune(store.db, { keepLast: args.keepLast, keepLabels, keepBlessed: args.keepBlessed === true });
    if (args.dryRun) {
      for (const run of plan.remove) stdout.write(`Would remove ${runText(run)}.\n`);
      stdout.write(`Would remove ${plan.remove.length} run${plan.remove.length === 1 ? '' : 's'} and keep ${plan.keep.length}; ${args.db} is ${formatBytes(before)}.\n`);
      return ExitCode.ok;
    }
    const result = prune(store.db, plan);
    for (const run of result.removed) stdout.write(`Removed ${runText(run)}: ${run.items} item${run.items === 1 ? '' : 's'}.\n`);
    for (const run of result.inProgress) stdout.write(`Kept ${runText(run)}: ${run.reason}.\n`);
    store.close();
    const after = databaseBytes(args.db);
    stdout.write(
      `Removed ${result.removed.length} run${result.removed.length === 1 ? '' : 's'}, kept ${plan.keep.length + result.inProgress.length}; ` +
        `${args.db}: ${formatBytes(before)} before, ${formatBytes(after)} after.\n`,
    );
    return result.inProgress.length > 0 ? ExitCode.runHeld : ExitCode.ok;
  } finally {
    store.close();
  }
}

export const runsPruneCommand = (cli: CommandContext): CommandModule<GlobalArgs, RunsPruneArgs & GlobalArgs> => ({
  command: 'prune',
  describe: 'Remove older runs (all but the newest N of each suite, runs with a kept label and blessed baselines) and compact the database',
  builder: (y: Argv<GlobalArgs>) =>
    y
      .option('keep-last', { type: 'number', demandOption: true, describe: 'The newest runs of each suite to keep' })
      .option('keep-label', { type: 'string', array: true, describe: 'Also keep every run with this label (repeatable)' })
      .option('keep-blessed', { type: 'boolean', describe: 'Also keep the runs blessed as baselines (dsbench baseline bless)' })
      .option('dry-run', { type: 'boolean', describe: 'Say what would be removed; change nothing' })
      .option('yes', { type: 'boolean', describe: 'Needed when nothing is kept (--keep-last 0 and no other keep)' })
      .option('db', { ...pathOption(cli), type: 'string', default: DEFAULT_DB, describe: 'Results database' }) as unknown as Argv<RunsPruneArgs & GlobalArgs>,
  handler: (argv: ArgumentsCamelCase<RunsPruneArgs & GlobalArgs>) => {
    const code = runRunsPrune(argv, cli.stdout);
    if (code !== 0) cli.exitCode = code;
  },
});
