#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { DsbenchError, UsageError } from '../http/errors.js';
import { ExitCode } from '../http/exit-codes.js';
import { redact } from '../http/redact.js';
import { VERSION } from '../version.js';
import { askCommand } from './ask.js';
import { compareCommand } from './compare.js';
import { conversationsCommand } from './conversations.js';
import { emulatorCommand } from './emulator.js';
import { mergeCommand } from './merge.js';
import { runCommand } from './run.js';
import { searchCommand } from './search.js';
import { globalOptions } from './global-options.js';
import { reportCommand } from './report.js';
import { runsCommand } from './runs.js';

async function main(argv: string[]): Promise<number> {
  const parser = globalOptions(yargs(argv))
    .scriptName('dsbench')
    .version(VERSION)
    .command(askCommand)
    .command(conversationsCommand)
    .command(runCommand)
    .command(searchCommand)
    .command(emulatorCommand)
    .command(runsCommand)
    .command(reportCommand)
    .command(compareCommand)
    .command(mergeCommand)
    .demandCommand(1, 'Give a command; see dsbench --help.')
    .strict()
    .recommendCommands()
    // With .fail(false) yargs throws a plain Error for bad flags, indistinguishable from an internal
    // error; a failure with a message and no error object is a usage error, anything else is rethrown.
    .fail((message, error) => {
      if (error) throw error;
      throw new UsageError(`${message}\nRun dsbench --help (or dsbench <command> --help) for usage.`);
    })
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .epilogue(
      'Environment: SRC_ENDPOINT, SRC_ACCESS_TOKEN, SRC_HEADER_<NAME>, SRC_HEADERS. With no endpoint, dsbench starts its embedded emulator.\n' +
        'Exit codes: 0 ok, 1 expectations or regression gates failed, 2 usage, 3 instance unreachable or auth failed, 4 aborted, 5 internal error.',
    );
  try {
    await parser.parseAsync();
    return process.exitCode === undefined ? ExitCode.ok : Number(process.exitCode);
  } catch (error) {
    return report(error);
  }
}

function report(error: unknown): number {
  if (error instanceof DsbenchError) {
    process.stderr.write(`dsbench: ${redact(error.message)}\n`);
    return error.exitCode;
  }
  if (error instanceof Error && error.name === 'YError') {
    process.stderr.write(`dsbench: ${error.message}\nRun dsbench --help (or dsbench <command> --help) for usage.\n`);
    return ExitCode.usage;
  }
  const detail = error instanceof Error ? (process.env.DSBENCH_DEBUG ? (error.stack ?? error.message) : error.message) : String(error);
  process.stderr.write(`dsbench: internal error: ${redact(detail)}\nPlease report it; set DSBENCH_DEBUG=1 for a stack trace.\n`);
  return ExitCode.internal;
}

process.exitCode = await main(hideBin(process.argv));
