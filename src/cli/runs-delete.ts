import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { UsageError } from '../errors/errors.js';
import { DEFAULT_DB, resolveRun } from '../report/open.js';
import { deleteRun } from '../store/delete-run.js';
import { openStore } from '../store/store.js';
import { existsSync } from 'node:fs';
import { type GlobalArgs, pathOption } from './global-options.js';
import type { CliOutput, CommandContext } from './io.js';

export interface RunsDeleteArgs {
  db: string;
  run: string;
  yes?: boolean | undefined;
}

/** `dsbench runs delete RUN --yes`: removes a run and everything it recorded. Returns the exit code. */
export function runRunsDelete(args: RunsDeleteArgs, stdout: CliOutput = process.stdout): number {
  if (!existsSync(args.db)) throw new UsageError(`no results database at ${args.db}; pass --db with the database's path.`);
  const store = openStore(args.db);
  try {
    const run = resolveRun(store.db, args.db, args.run);
    const what = `run ${run.id}${run.label ? ` (${run.label})` : ''} of suite ${run.suiteName}, started ${run.startedAt}`;
    if (args.yes !== true) {
      throw new UsageError(`dsbench runs delete removes ${what} and everything it recorded from ${args.db}, for good; add --yes to do it`);
    }
    const { items } = deleteRun(store.db, run.id);
    stdout.write(`Deleted ${what}: ${items} item${items === 1 ? '' : 's'} and everything recorded of them, from ${args.db}.\n`);
    return 0;
  } finally {
    store.close();
  }
}

export const runsDeleteCommand = (cli: CommandContext): CommandModule<GlobalArgs, RunsDeleteArgs & GlobalArgs> => ({
  command: 'delete <run>',
  describe: 'Delete a run and everything it recorded (its id, its label or latest); needs --yes; refused while another dsbench runs it',
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('run', { type: 'string', describe: 'The run: its id, its label (the newest run with it) or latest' })
      .option('db', { ...pathOption(cli), type: 'string', default: DEFAULT_DB, describe: 'Results database' })
      .option('yes', { type: 'boolean', describe: 'Really delete it' }) as unknown as Argv<RunsDeleteArgs & GlobalArgs>,
  handler: (argv: ArgumentsCamelCase<RunsDeleteArgs & GlobalArgs>) => {
    const code = runRunsDelete({ ...argv, run: String(argv.run) }, cli.stdout);
    if (code !== 0) cli.exitCode = code;
  },
});
