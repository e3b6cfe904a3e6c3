// The whole command line as a function: `runCli(argv, io)` parses the words, runs the command with the
// given io and returns the exit code. Importing it does nothing to the process (main.ts, the bin entry,
// installs the signal handlers and sets the exit code), so tests run the shipped CLI in their own process.
import yargs, { type CommandModule } from 'yargs';
import { DsbenchError, UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { redact } from '../redact.js';
import { VERSION } from '../version.js';
import { type CommandName, commandUsage } from './command-usage.js';
import { suggestFlags } from './did-you-mean.js';
import { type GlobalArgs, NETWORK_COMMANDS, globalOptions } from './global-options.js';
import type { CliIo, CommandContext } from './io.js';
import { terminalSafe } from '../terminal-text.js';

export type { CliIo, CliOutput } from './io.js';

type CommandFor = (cli: CommandContext) => CommandModule<GlobalArgs, any>;

/** Each command's module, imported only when that command runs, so a command starts without the others' code. */
const commandModules: Record<CommandName, () => Promise<CommandFor>> = {
  ask: async () => (await import('./ask.js')).askCommand,
  conversations: async () => (await import('./conversations.js')).conversationsCommand,
  run: async () => (await import('./run.js')).runCommand,
  search: async () => (await import('./search.js')).searchCommand,
  emulator: async () => (await import('./emulator.js')).emulatorCommand,
  runs: async () => (await import('./runs.js')).runsCommand,
  report: async () => (await import('./report.js')).reportCommand,
  compare: async () => (await import('./compare.js')).compareCommand,
  confirm: async () => (await import('./confirm.js')).confirmCommand,
  plan: async () => (await import('./plan.js')).planCommand,
  baseline: async () => (await import('./baseline.js')).baselineCommand,
  merge: async () => (await import('./merge.js')).mergeCommand,
  grade: async () => (await import('./grade.js')).gradeCommand,
  suite: async () => (await import('./suite.js')).suiteCommand,
  view: async () => (await import('./view.js')).viewCommand,
};

/** The words of a command line before `--` (after it, every word is a positional value). */
function flagWords(argv: readonly string[]): readonly string[] {
  return argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
}

/** The command a command line names: its first word that is a command's name (none for `dsbench --help`). */
function commandNamed(argv: readonly string[]): CommandName | undefined {
  return flagWords(argv).find((word): word is CommandName => Object.hasOwn(commandUsage, word));
}

/** Runs the command line `argv` (the words after `dsbench`) with `io`; resolves to its exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const cli: CommandContext = { stdout: io.stdout, stderr: io.stderr, env: io.env, cwd: io.cwd, exitCode: ExitCode.ok };
  try {
    const named = commandNamed(argv);
    const words = valuesStartingWithDash(argv);
    const parser = globalOptions(yargs(words), named === undefined || NETWORK_COMMANDS.has(named)).scriptName('dsbench').version(VERSION)
      // English like the rest of dsbench's output (suggestFlags reads yargs' messages); the bundled CLI has
      // no yargs locale files anyway.
      .locale('en');
    for (const name of Object.keys(commandUsage) as CommandName[]) {
      // --help lists the other commands by their usage and description alone, without loading their code.
      parser.command(name === named ? (await commandModules[name]())(cli) : { ...commandUsage[name], handler: () => notLoaded(name) });
    }
    await parser
      .middleware((args) => rejectNotANumber(args, argv), true)
      .middleware((args) => rejectRepeated(args, (parser as unknown as { getOptions(): { array: string[] } }).getOptions().array), true)
      .demandCommand(1, 'Give a command; see dsbench --help.')
      .strict()
      .recommendCommands()
      // With .fail(false) yargs throws a plain Error for bad flags, indistinguishable from an internal
      // error; a failure with a message and no error object is a usage error, anything else is rethrown.
      .fail((message, error) => {
        if (error) throw error;
        // The parser's options at this point are those of the command being parsed.
        const known = Object.keys((parser as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key);
        throw new UsageError(`${suggestFlags(message, known)}\nRun dsbench --help (or dsbench <command> --help) for usage.`);
      })
      // yargs renders a command's whole help before running it, to have it at hand; wrapping is most of that
      // work (about 0.01 s of CPU), so help text is wrapped only when it is asked for.
      .wrap(flagWords(argv).some((word) => word === '--help' || word.startsWith('--help=')) ? Math.min(110, io.stdout.columns ?? 100) : null)
      .epilogue(
        'Environment: SRC_ENDPOINT, SRC_ACCESS_TOKEN, SRC_HEADER_<NAME>, SRC_HEADERS. With no endpoint, dsbench starts its embedded emulator.\n' +
          'Exit codes: 0 ok, 1 expectations or regression gates failed, 2 usage, 3 instance unreachable or auth failed, 4 aborted (SIGINT, SIGTERM, SIGHUP), ' +
          '5 internal error, 6 results database unusable, 7 run held by another process, 8 nothing to compare, 10 run stopped by --max-credits (docs/exit-codes.md).',
      )
      // With a callback, yargs hands over what it would print (help, version) instead of printing it and
      // exiting the process.
      .parseAsync(words, {}, (_error, _args, output) => {
        if (output) io.stdout.write(`${output}\n`);
      });
    return cli.exitCode;
  } catch (error) {
    return report(io, error instanceof DsbenchError ? error : ((await storageFault(error)) ?? error));
  }
}

/** A SQLite failure met outside the store (a corrupted page read by a report's query) is the results database's, not a bug. */
async function storageFault(error: unknown): Promise<DsbenchError | undefined> {
  if (!(error instanceof Error) || (error.name !== 'SqliteError' && error.name !== 'StepError')) return undefined;
  return (await import('../store/storage-error.js')).unnamedStorageError(error);
}

/** Flags whose values may start with a dash (`--sort -updated_at`): joined to their flag so yargs reads a value, not short flags. */
const DASH_VALUES = new Set(['--sort']);

function valuesStartingWithDash(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    if (DASH_VALUES.has(argv[i]!) && next !== undefined && /^-[A-Za-z_]/.test(next)) {
      out.push(`${argv[i]}=${next}`);
      i++;
    } else out.push(argv[i]!);
  }
  return out;
}

/** yargs reads `--display abc` as NaN and says "received NaN" later; say which flag and what was given instead. */
function rejectNotANumber(args: Record<string, unknown>, argv: readonly string[]): void {
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== 'number' || !Number.isNaN(value) || /[A-Z]/.test(key)) continue;
    const at = argv.findIndex((a) => a === `--${key}` || a.startsWith(`--${key}=`));
    const given = at < 0 ? '' : argv[at]!.includes('=') ? argv[at]!.slice(argv[at]!.indexOf('=') + 1) : (argv[at + 1] ?? '');
    throw new UsageError(`--${key} takes a number, got "${given}"`);
  }
}

/**
 * yargs turns a flag given twice into an array, which a one-value flag's reader cannot take: the same value
 * twice counts once; two different values are a usage error rather than a guess at which was meant.
 */
function rejectRepeated(args: Record<string, unknown>, arrays: readonly string[]): void {
  const repeatable = new Set(arrays);
  for (const [key, value] of Object.entries(args)) {
    if (!Array.isArray(value) || repeatable.has(key) || key === '_' || /[A-Z]/.test(key)) continue;
    const distinct = [...new Set(value.map(String))];
    if (distinct.length > 1) throw new UsageError(`--${key} was given ${value.length} times (${distinct.map((v) => `"${v}"`).join(', ')}); give it once`);
    for (const [other, same] of Object.entries(args)) if (same === value) args[other] = value[0];
  }
}

/** A command ran that commandNamed did not see: a bug in reading the command line, not the user's. */
function notLoaded(name: string): never {
  throw new Error(`command ${name} ran without its module loaded`);
}

function report(io: CliIo, error: unknown): number {
  if (error instanceof DsbenchError) {
    io.stderr.write(`dsbench: ${terminalSafe(redact(error.message))}\n`);
    return error.exitCode;
  }
  if (error instanceof Error && error.name === 'YError') {
    io.stderr.write(`dsbench: ${error.message}\nRun dsbench --help (or dsbench <command> --help) for usage.\n`);
    return ExitCode.usage;
  }
  const detail = error instanceof Error ? (io.env.DSBENCH_DEBUG ? (error.stack ?? error.message) : error.message) : String(error);
  io.stderr.write(`dsbench: internal error: ${terminalSafe(redact(detail))}\nPlease report it; set DSBENCH_DEBUG=1 for a stack trace.\n`);
  return ExitCode.internal;
}
