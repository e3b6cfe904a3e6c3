import type { Argv, CommandModule } from 'yargs';
import { commandUsage } from './command-usage.js';
import type { GlobalArgs } from './global-options.js';
import { generateCommand, verifyCommand } from './suite-generate.js';
import { importCommand } from './suite-import.js';
import type { CommandContext } from './io.js';

/** `dsbench suite`: write suites from other files (import) or from the instance's index (generate, verify). */
export const suiteCommand = (cli: CommandContext): CommandModule<GlobalArgs, GlobalArgs> => ({
  ...commandUsage.suite,
  builder: (y: Argv<GlobalArgs>) =>
    y.command(importCommand(cli)).command(generateCommand(cli)).command(verifyCommand(cli)).demandCommand(1, 'Give a suite command: import, generate or verify.') as Argv<GlobalArgs>,
  handler: () => undefined,
});
