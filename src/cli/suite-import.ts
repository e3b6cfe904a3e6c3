import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { SUITE_JSON_SCHEMA_FILE } from '../config/suite-json-schema.js';
import { importFormatOf, importSuite, suiteNameFor } from '../config/suite-import.js';
import { UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { PACKAGE_DIR } from '../version.js';
import { type GlobalArgs, pathOption } from './global-options.js';
import type { CliOutput, CommandContext } from './io.js';

export interface SuiteImportArgs {
  file: string;
  out?: string | undefined;
  name?: string | undefined;
  force: boolean;
}

/** The `$schema` path as the written file sees it: relative, so the file can move with the repository. */
function schemaPathFrom(out: string): string {
  const relative = path.relative(path.dirname(path.resolve(out)), path.join(PACKAGE_DIR, SUITE_JSON_SCHEMA_FILE)).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/** `dsbench suite import` without yargs: writes the suite, or throws a SuiteError listing every bad row. */
export function runSuiteImport(args: SuiteImportArgs, stdout: CliOutput = process.stdout): number {
  const format = importFormatOf(args.file);
  if (!format) throw new UsageError(`${args.file}: suite import reads a .csv file (a header row, then a row per question) or a .jsonl file (a JSON object per line)`);
  const out = args.out ?? path.join(path.dirname(args.file), `${path.basename(args.file, path.extname(args.file))}.yaml`);
  if (existsSync(out) && !args.force) throw new UsageError(`${out} exists; give another --out, or --force to replace it`);
  let text: string;
  try {
    text = readFileSync(args.file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `file not found: ${args.file}; check the path` : `cannot read ${args.file}: ${(error as Error).message}`, { cause: error });
  }
  const name = args.name ?? suiteNameFor(args.file);
  const imported = importSuite(text, args.file, format, name, schemaPathFrom(out));
  writeFileSync(out, imported.yaml);
  stdout.write(`wrote ${out}: suite ${name}, ${imported.questions} question${imported.questions === 1 ? '' : 's'}; try it on the emulator with npx dsbench run ${out}\n`);
  return ExitCode.ok;
}

export const importCommand = (cli: CommandContext): CommandModule<GlobalArgs, SuiteImportArgs & GlobalArgs> => ({
  command: 'import <file>',
  describe: 'Write a suite (YAML) from questions in a CSV file (header row: id, question, tags, followups, expect fields) or a JSONL file (one object per line)',
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('file', { ...pathOption(cli), type: 'string', demandOption: true, describe: 'FILE.csv or FILE.jsonl' })
      .option('out', { ...pathOption(cli), type: 'string', describe: 'Suite file to write (default: FILE with .yaml, beside it)' })
      .option('name', { type: 'string', describe: "The suite's name (default: from the file name)" })
      .option('force', { type: 'boolean', default: false, describe: 'Replace --out if it exists' }) as unknown as Argv<SuiteImportArgs & GlobalArgs>,
  handler: (argv: ArgumentsCamelCase<SuiteImportArgs & GlobalArgs>) => {
    const code = runSuiteImport(argv, cli.stdout);
    if (code !== ExitCode.ok) cli.exitCode = code;
  },
});
