import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { verdictWord } from '../model/verdict.js';
import { DEFAULT_DB, resolveRun } from '../report/open.js';
import { safeJson, textTable } from '../report/tables.js';
import { blessRun, dropBaseline, listBaselines } from '../store/baselines.js';
import { type NightVerdict, type RunRecord, findRun, nightVerdict } from '../store/queries.js';
import { openStore } from '../store/store.js';
import { existsSync } from 'node:fs';
import { commandUsage } from './command-usage.js';
import { type GlobalArgs, pathOption } from './global-options.js';
import type { CliOutput, CommandContext } from './io.js';
import { textWidthFor } from './text-width.js';

// `dsbench baseline bless|list|drop`: names for runs chosen as baselines, read back as `blessed:<name>`.
// Only the names table is written: never the run a name points at.

export interface BaselineArgs {
  db: string;
  json?: boolean | undefined;
}

export interface BlessArgs extends BaselineArgs {
  run: string;
  name: string;
  force?: boolean | undefined;
}

/** A name is used as `blessed:<name>`: letters, digits and . _ -, so it reads back whole. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function openExisting(db: string) {
  if (!existsSync(db)) throw new UsageError(`no results database at ${db}: run a suite first (dsbench run), or pass --db with the database's path.`);
  return openStore(db);
}

const runName = (run: RunRecord): string => `run ${run.id}${run.label ? ` (${run.label})` : ''} of suite ${run.suiteName}, started ${run.startedAt}`;

/** Why a run makes a poor baseline (it is refused without --force), or undefined when it makes a good one. */
function unfitBecause(run: RunRecord, verdict: NightVerdict): string | undefined {
  if (run.status === 'running') return `it is still running (or was killed before it ended: resume it first with dsbench run --resume ${run.id})`;
  if (run.nothingAsked) return 'it asked nothing (every item was skipped before it was sent)';
  if (verdict.compared && verdict.exitCode !== ExitCode.ok) return `its comparison with its baseline did not pass (exit ${verdict.exitCode})`;
  if (verdict.exitCode !== ExitCode.ok) return `its verdict did not pass (${verdictWord(verdict.exitCode)}, exit ${verdict.exitCode})`;
  return undefined;
}

/** `dsbench baseline bless RUN --name NAME [--force]`. Returns the exit code. */
export function runBless(args: BlessArgs, stdout: CliOutput): number {
  const name = String(args.name);
  if (!NAME.test(name)) throw new UsageError(`--name ${name}: a baseline's name is letters, digits, '.', '_' and '-', starting with a letter or digit (it is read back as blessed:<name>)`);
  const store = openExisting(args.db);
  try {
    const run = resolveRun(store.db, args.db, args.run);
    const why = unfitBecause(run, nightVerdict(store.db, run.id));
    if (why !== undefined && args.force !== true) {
      throw new UsageError(`${runName(run)} is not blessed as ${name}: ${why}. Bless a run that passed, or add --force to bless it anyway`);
    }
    const { previous } = blessRun(store.db, { name, runId: run.id, blessedAt: new Date().toISOString(), forced: why !== undefined });
    const moved = previous === null ? '' : previous === run.id ? ' (it already named that run)' : `; it named run ${previous} before, and now names this one`;
    const forced = why === undefined ? '' : ` Blessed with --force although ${why}.`;
    stdout.write(`Blessed ${runName(run)} as ${name}${moved}: compare with it as blessed:${name}.${forced}\n`);
    return ExitCode.ok;
  } finally {
    store.close();
  }
}

/** `dsbench baseline list`. */
export function runBaselineList(args: BaselineArgs, stdout: CliOutput, width?: number): number {
  const store = openExisting(args.db);
  try {
    const rows = listBaselines(store.db).map((b) => ({ ...b, run: findRun(store.db, b.runId)! }));
    if (args.json) {
      stdout.write(safeJson(rows.map(({ run, ...b }) => ({ ...b, label: run.label, suite: run.suiteName, startedAt: run.startedAt }))));
    } else if (rows.length === 0) {
      stdout.write(`No baselines in ${args.db}; bless one with dsbench baseline bless <run> --name <name>.\n`);
    } else {
      stdout.write(
        textTable({
          headers: ['name', 'run', 'label', 'suite', 'run started', 'blessed', 'forced'],
          rows: rows.map((b) => [b.name, String(b.runId), b.run.label ?? '', b.run.suiteName, b.run.startedAt, b.blessedAt, b.forced ? 'yes' : '']),
        }, width),
      );
    }
    return ExitCode.ok;
  } finally {
    store.close();
  }
}

/** `dsbench baseline drop NAME`: removes the name; the run stays. */
export function runBaselineDrop(args: BaselineArgs & { name: string }, stdout: CliOutput): number {
  const store = openExisting(args.db);
  try {
    const name = String(args.name);
    if (!dropBaseline(store.db, name)) {
      const names = listBaselines(store.db).map((b) => b.name);
      throw new UsageError(`no baseline named "${name}" in ${args.db}; ${names.length === 0 ? 'none is blessed' : `the names are: ${names.join(', ')}`}`);
    }
    stdout.write(`Dropped the baseline ${name} from ${args.db}; its run is kept.\n`);
    return ExitCode.ok;
  } finally {
    store.close();
  }
}

const dbOption = (cli: CommandContext) => ({ ...pathOption(cli), type: 'string' as const, default: DEFAULT_DB, describe: 'Results database' });

export const baselineCommand = (cli: CommandContext): CommandModule<GlobalArgs, GlobalArgs> => ({
  ...commandUsage.baseline,
  builder: (y: Argv<GlobalArgs>) =>
    y
      .command({
        command: 'bless <run>',
        describe: 'Name a run as a baseline (blessed:<name>); refused for a run whose verdict failed, that asked nothing or still runs, unless --force',
        builder: (b: Argv<GlobalArgs>) =>
          b
            .positional('run', { type: 'string', describe: 'The run: id, label, latest, with ~N' })
            .option('name', { type: 'string', demandOption: true, describe: 'The name, e.g. release-7.0; blessing it again moves it' })
            .option('force', { type: 'boolean', default: false, describe: 'Bless it even if its verdict failed, it asked nothing or it is still running' })
            .option('db', dbOption(cli)) as unknown as Argv<BlessArgs & GlobalArgs>,
        handler: (argv: ArgumentsCamelCase<BlessArgs & GlobalArgs>) => {
          cli.exitCode = runBless({ ...argv, run: String(argv.run) }, cli.stdout);
        },
      })
      .command({
        command: 'list',
        describe: 'List the baselines: name, run, suite, when blessed',
        builder: (b: Argv<GlobalArgs>) => b.option('db', dbOption(cli)) as unknown as Argv<BaselineArgs & GlobalArgs>,
        handler: (argv: ArgumentsCamelCase<BaselineArgs & GlobalArgs>) => {
          cli.exitCode = runBaselineList(argv, cli.stdout, textWidthFor(cli));
        },
      })
      .command({
        command: 'drop <name>',
        describe: 'Remove a baseline name (the run stays)',
        builder: (b: Argv<GlobalArgs>) => b.positional('name', { type: 'string' }).option('db', dbOption(cli)) as unknown as Argv<BaselineArgs & { name: string } & GlobalArgs>,
        handler: (argv: ArgumentsCamelCase<BaselineArgs & { name: string } & GlobalArgs>) => {
          cli.exitCode = runBaselineDrop(argv, cli.stdout);
        },
      })
      .demandCommand(1, 'Give a baseline command: bless, list or drop.'),
  handler: () => undefined,
});
