import { writeFile } from 'node:fs/promises';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { headersFor } from '../config/credentials.js';
import { parseDuration } from '../config/duration.js';
import { GENERATED_KINDS, ToleranceSchema, type GeneratedKind } from '../config/generated-schema.js';
import { loadSuite } from '../config/load-suite.js';
import { generateSuite } from '../generate/generate.js';
import { IndexSearch } from '../generate/index-search.js';
import { unifiedDiff } from '../generate/line-diff.js';
import { renderSuite } from '../generate/suite-file.js';
import { applyEdits, verifySuite } from '../generate/verify.js';
import { UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { Transport } from '../http/transport.js';
import { DEFAULT_API, transportSettings, type GlobalArgs, pathOption } from './global-options.js';
import { openTarget, type Target } from './target.js';
import type { CommandContext } from './io.js';

interface GenerateArgs extends GlobalArgs {
  repo: string[];
  count: number;
  kinds: string;
  seed: string;
  output?: string | undefined;
  name: string;
  reference: boolean;
  tolerance: string;
  minRecall: number;
  searchTimeout: string;
}

interface VerifyArgs extends GlobalArgs {
  file: string;
  update: boolean;
  searchTimeout: string;
}

const searchTimeoutOption = { type: 'string', default: '5m', describe: 'Longest one search of the index may take' } as const;

/** The index the command reads: the target's search stream, with its request count. */
async function openIndex(cli: CommandContext, argv: GlobalArgs & { searchTimeout: string }): Promise<{ target: Target; transport: Transport; search: IndexSearch; instance: string }> {
  const timeoutMs = parseDuration(argv.searchTimeout, '--search-timeout');
  const target = await openTarget(argv.endpoint, cli);
  const transport = new Transport({ endpoint: target.connection.endpoint, headers: headersFor(target.connection, 'stream'), ...transportSettings(argv) });
  return { target, transport, search: new IndexSearch(transport, timeoutMs), instance: target.emulated ? 'emulator' : target.connection.endpoint };
}

export const generateCommand = (cli: CommandContext): CommandModule<GlobalArgs, GenerateArgs> => ({
  command: 'generate',
  describe: 'Mine questions with checkable answers from the instance index (streaming search only, no model)',
  builder: (y: Argv<GlobalArgs>) =>
    y
      .option('repo', { type: 'string', array: true, demandOption: true, describe: 'Repository (full name) or repo: pattern to mine; repeatable' })
      .option('count', { type: 'number', default: 20, describe: 'Questions to write' })
      .option('kinds', { type: 'string', default: GENERATED_KINDS.join(','), describe: 'Kinds of questions, comma-separated: definition, usage, count' })
      .option('seed', { type: 'string', default: '1', describe: 'Seed of every choice: the same seed on the same index gives the same suite' })
      .option('output', { ...pathOption(cli), alias: 'o', type: 'string', describe: 'Suite file to write (default: standard output)' })
      .option('name', { type: 'string', default: 'generated', describe: 'The suite name' })
      .option('reference', { type: 'boolean', default: false, describe: 'Give definition questions a reference answer too, for suites also graded by a judge' })
      .option('tolerance', { type: 'string', default: '10%', describe: 'Tolerance of count questions: an amount (2) or a percentage (10%)' })
      .option('min-recall', { type: 'number', default: 0.5, describe: 'Share of the files a usage answer must cite (0 to 1)' })
      .option('search-timeout', searchTimeoutOption) as unknown as Argv<GenerateArgs>,
  handler: async (argv: ArgumentsCamelCase<GenerateArgs>) => {
    const kinds = kindsOf(argv.kinds);
    if (!(Number.isInteger(argv.count) && argv.count >= 1)) throw new UsageError(`--count must be a whole number of at least 1, got ${argv.count}`);
    if (!(argv.minRecall > 0 && argv.minRecall <= 1)) throw new UsageError(`--min-recall must be above 0 and at most 1, got ${argv.minRecall}`);
    const tolerance = ToleranceSchema.safeParse(/^\d+(\.\d+)?$/.test(argv.tolerance) ? Number(argv.tolerance) : argv.tolerance);
    if (!tolerance.success) throw new UsageError(`--tolerance: ${tolerance.error.issues[0]?.message ?? 'invalid'}`);
    if (!/^[a-z0-9._-]+$/.test(argv.name)) throw new UsageError(`--name "${argv.name}" is not a valid suite name; use lower-case letters, digits, ".", "_" and "-"`);
    const seed = /^\d+$/.test(argv.seed) ? Number(argv.seed) : argv.seed;
    const { target, transport, search, instance } = await openIndex(cli, argv);
    const started = performance.now();
    try {
      const suite = await generateSuite({
        search,
        repos: argv.repo,
        count: argv.count,
        kinds,
        seed,
        instance,
        api: argv.api ?? DEFAULT_API,
        reference: argv.reference,
        tolerance: tolerance.data,
        minRecall: argv.minRecall,
        name: argv.name,
        now: new Date(),
        warn: (line) => cli.stderr.write(`dsbench: ${line}\n`),
      });
      const text = renderSuite(suite);
      if (argv.output) await writeFile(argv.output, text);
      else cli.stdout.write(text);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const summary = `${suite.questions.length} questions from ${suite.generated.repositories.length} repositories in ${seconds} s, ${search.requests} searches`;
      if (argv.json) cli.stderr.write(`${JSON.stringify({ questions: suite.questions.length, repositories: suite.generated.repositories, seconds: Number(seconds), searches: search.requests, output: argv.output ?? null })}\n`);
      else cli.stderr.write(`dsbench: wrote ${summary}${argv.output ? ` to ${argv.output}` : ''}\n`);
    } finally {
      await transport.close();
      await target.close();
    }
  },
});

export const verifyCommand = (cli: CommandContext): CommandModule<GlobalArgs, VerifyArgs> => ({
  command: 'verify <file>',
  describe: 'Run the queries of a generated suite again and list the expectations that no longer hold (exit 1 when any)',
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('file', { ...pathOption(cli), type: 'string', demandOption: true, describe: 'A suite written by dsbench suite generate' })
      .option('update', { type: 'boolean', default: false, describe: 'Rewrite the stale expectations in the file and show the diff' })
      .option('search-timeout', searchTimeoutOption) as unknown as Argv<VerifyArgs>,
  handler: async (argv: ArgumentsCamelCase<VerifyArgs>) => {
    const loaded = await loadSuite(argv.file);
    const questions = loaded.suite.questions;
    if (!questions.some((q) => q.generated)) throw new UsageError(`${argv.file} has no generated questions (none has a generated: block); dsbench suite generate writes them`);
    const { target, transport, search } = await openIndex(cli, argv);
    try {
      const result = await verifySuite(questions, search);
      const out: string[] = [];
      for (const s of result.stale) out.push(`stale ${s.id}: ${s.changes.join('; ')}`);
      for (const u of result.unverified) out.push(`unverified ${u.id}: ${u.why}`);
      for (const n of result.notes) out.push(`moved ${n.id}: ${n.changes.join('; ')} (no expectation changes)`);
      const failed = result.stale.length + result.unverified.length;
      out.push(`${result.checked} generated questions checked with ${search.requests} searches: ${result.stale.length} stale, ${result.unverified.length} could not be verified`);
      cli.stdout.write(`${out.join('\n')}\n`);
      if (argv.update && result.stale.length + result.notes.length > 0) {
        const updated = applyEdits(loaded.text, questions, [...result.stale, ...result.notes]);
        cli.stdout.write(unifiedDiff(loaded.text, updated, `${argv.file} (before)`, `${argv.file} (updated)`));
        await writeFile(argv.file, updated);
        cli.stdout.write(`updated ${argv.file}${result.unverified.length > 0 ? '; the unverified questions were left as they were' : ''}\n`);
      }
      // Rewritten expectations hold again; a question that could not be checked still fails.
      cli.exitCode = (argv.update ? result.unverified.length : failed) > 0 ? ExitCode.expectationsFailed : ExitCode.ok;
    } finally {
      await transport.close();
      await target.close();
    }
  },
});

function kindsOf(value: string): GeneratedKind[] {
  const kinds = [...new Set(value.split(',').map((k) => k.trim()).filter(Boolean))];
  const unknown = kinds.filter((k) => !(GENERATED_KINDS as readonly string[]).includes(k));
  if (kinds.length === 0 || unknown.length > 0) throw new UsageError(`--kinds: ${unknown.length > 0 ? `unknown kind ${unknown.map((k) => `"${k}"`).join(', ')}` : 'none given'}; choose from ${GENERATED_KINDS.join(', ')}`);
  return kinds as GeneratedKind[];
}
