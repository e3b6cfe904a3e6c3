import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { headersFor } from '../config/credentials.js';
import { parseDuration } from '../config/duration.js';
import { Transport } from '../http/transport.js';
import { itemExitCode } from '../model/verdict.js';
import { runSearch, type SearchResult } from '../stream/index.js';
import { transportSettings, type GlobalArgs } from './global-options.js';
import { openTarget } from './target.js';
import { commandUsage } from './command-usage.js';
import type { CommandContext } from './io.js';
import { terminalJson, terminalSafe } from '../terminal-text.js';

interface SearchArgs extends GlobalArgs {
  query: string;
  cm: boolean;
  cl?: number | undefined;
  display?: number | undefined;
  maxLineLen?: number | undefined;
  patternType?: 'standard' | 'keyword' | 'regexp' | undefined;
  timeout: string;
  stallTimeout: string;
}

export const searchCommand = (cli: CommandContext): CommandModule<GlobalArgs, SearchArgs> => ({
  ...commandUsage.search,
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('query', { type: 'string', demandOption: true, describe: 'Query, e.g. "fetch count:all"' })
      .option('cm', { type: 'boolean', default: false, describe: 'Chunk matches instead of line matches' })
      .option('cl', { type: 'number', describe: 'Lines of context around a chunk match (with --cm)' })
      .option('display', { type: 'number', describe: 'Most matches the server sends in full (-1: no limit); counting goes on' })
      .option('max-line-len', { type: 'number', describe: 'Longest line of chunk-match context (-1: no limit)' })
      .option('pattern-type', { choices: ['standard', 'keyword', 'regexp'] as const, describe: 'How the query is read, unless it has patternType:' })
      .option('timeout', { type: 'string', default: '10m', describe: 'Longest the whole search may take' })
      .option('stall-timeout', { type: 'string', default: '30s', describe: 'Longest silence of the stream before giving up' }) as unknown as Argv<SearchArgs>,
  handler: async (argv: ArgumentsCamelCase<SearchArgs>) => {
    const timeoutMs = parseDuration(argv.timeout, '--timeout');
    const stallTimeoutMs = parseDuration(argv.stallTimeout, '--stall-timeout');
    const target = await openTarget(argv.endpoint, cli);
    const transport = new Transport({ endpoint: target.connection.endpoint, headers: headersFor(target.connection, 'stream'), ...transportSettings(argv) });
    try {
      const result = await runSearch(
        transport,
        {
          query: argv.query,
          ...(argv.cm && { chunkMatches: true }),
          ...(argv.cl !== undefined && { contextLines: argv.cl }),
          ...(argv.display !== undefined && { display: argv.display }),
          ...(argv.maxLineLen !== undefined && { maxLineLen: argv.maxLineLen }),
          ...(argv.patternType !== undefined && { patternType: argv.patternType }),
        },
        { timeoutMs, stallTimeoutMs },
      );
      if (argv.json) cli.stdout.write(`${terminalJson(JSON.stringify(jsonOf(result), null, 2))}\n`);
      else {
        const text = textOf(result);
        cli.stdout.write(terminalSafe(text.out));
        if (text.err) cli.stderr.write(terminalSafe(text.err));
      }
      cli.exitCode = exitCodeOf(result);
    } finally {
      await transport.close();
      await target.close();
    }
  },
});

function jsonOf(result: SearchResult) {
  return { ...result, alert: result.alerts[0] ?? null, error: [...result.errors, result.failure?.message].filter(Boolean).join('; ') || null };
}

/**
 * The platform CLI's manner: `N[+] results in T from M repositories`, then skipped reasons and alerts on
 * stdout; what went wrong (errors, a failed stream) on stderr, so a pipe of the results stays clean.
 */
export function textOf(result: SearchResult): { out: string; err: string } {
  const lines: string[] = [];
  const problems: string[] = [];
  const ran = result.matchCount !== undefined || result.counted > 0;
  if (result.verdict !== 'http_error' && (ran || result.verdict !== 'error')) {
    const count = result.matchCount ?? result.counted;
    const plus = result.verdict === 'complete' ? '' : '+';
    const repos = result.repositoriesCount ?? result.repositories;
    const seconds = ((result.durationMs ?? result.wallMs) / 1000).toFixed(2);
    lines.push(`${count.toLocaleString('en-US')}${plus} results in ${seconds}s from ${repos} repositories (verdict: ${result.verdict})`);
    if (result.matchCount !== undefined && result.counted !== result.matchCount) {
      lines.push(`  received ${result.counted.toLocaleString('en-US')} of them${result.displayLimited ? ' (display limit)' : ''}`);
    }
  }
  for (const s of result.skipped) lines.push(`Skipped: ${s.title}${s.suggested ? ` (try ${s.suggested.queryExpression})` : ''}`);
  for (const a of result.alerts) lines.push(`Alert: ${a.title}${a.description ? ` — ${a.description}` : ''}`);
  for (const e of result.errors) problems.push(`dsbench: search error: ${e}`);
  if (result.failure) problems.push(`dsbench: search failed: ${result.failure.message}`);
  // Both clocks, named: the server's own duration, and dsbench's from sending the request to `done`.
  const server = result.durationMs !== undefined ? `${(result.durationMs / 1000).toFixed(2)}s` : '—';
  const firstMatch = result.timeToFirstMatchMs !== undefined ? `${Math.round(result.timeToFirstMatchMs)} ms` : '—';
  lines.push(`server ${server}, wall ${(result.wallMs / 1000).toFixed(2)}s, first match after ${firstMatch}`);
  return { out: `${lines.join('\n')}\n`, err: problems.length > 0 ? `${problems.join('\n')}\n` : '' };
}

/** The same table as a search item of a run (src/runner/verdict.ts): `run` and `search` agree. */
function exitCodeOf(result: SearchResult): number {
  return itemExitCode('search', result.verdict, result.httpStatus);
}
