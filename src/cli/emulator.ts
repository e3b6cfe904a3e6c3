import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { startEmulator } from '../emulator/index.js';
import { UsageError } from '../http/errors.js';
import type { GlobalArgs } from './global-options.js';
import { commandUsage } from './command-usage.js';

interface EmulatorArgs extends GlobalArgs {
  port: number;
  host: string;
  seed: string;
  timeScale: number;
  medianMs: number;
  sigma: number;
  corpus?: string | undefined;
  quotaLimit: number;
  sharing: boolean;
  legacyFollowupReply: 'question' | 'conversation';
  tokenLimitRate: number;
  internalErrorRate: number;
  faultRate429: number;
  faultRate500: number;
  faultRate503: number;
  faultRateReset: number;
}

export const emulatorCommand: CommandModule<GlobalArgs, EmulatorArgs> = {
  ...commandUsage.emulator,
  builder: (y: Argv<GlobalArgs>) =>
    y
      .option('port', { type: 'number', default: 3080, describe: 'Port to listen on (0: any free port)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' })
      .option('seed', { type: 'string', default: '1', describe: 'Seed of every random choice (same seed, same answers and times)' })
      .option('time-scale', { type: 'number', default: 1, describe: 'Real time per emulated time: 0.01 makes a 30 s answer take 0.3 s' })
      .option('median-ms', { type: 'number', default: 30_000, describe: 'Median answer time (log-normal), emulated ms' })
      .option('sigma', { type: 'number', default: 0.8, describe: 'Log-normal sigma of answer times' })
      .option('corpus', { type: 'string', describe: 'Folder of repositories laid out <host>/<owner>/<name> (default: dsbench\'s node_modules)' })
      .option('quota-limit', { type: 'number', default: -1, describe: 'Credits per user before quota errors (-1: unlimited)' })
      .option('sharing', { type: 'boolean', default: true, describe: 'Allow reading other users\' conversations by read token' })
      .option('legacy-followup-reply', { choices: ['question', 'conversation'] as const, default: 'question' as const, describe: 'What a legacy follow-up returns: the new question alone (as published) or the whole conversation (as a newer client reads it)' })
      .option('token-limit-rate', { type: 'number', default: 0, describe: 'Fraction of questions ending in a token-limit error' })
      .option('internal-error-rate', { type: 'number', default: 0, describe: 'Fraction of questions ending in an internal error' })
      .option('fault-rate-429', { type: 'number', default: 0, describe: 'Fraction of requests answered 429 with Retry-After' })
      .option('fault-rate-500', { type: 'number', default: 0, describe: 'Fraction of requests answered 500' })
      .option('fault-rate-503', { type: 'number', default: 0, describe: 'Fraction of requests answered 503' })
      .option('fault-rate-reset', { type: 'number', default: 0, describe: 'Fraction of connections reset before an answer' }) as unknown as Argv<EmulatorArgs>,
  handler: async (argv: ArgumentsCamelCase<EmulatorArgs>) => {
    let emulator;
    try {
      emulator = await startEmulator({
        port: argv.port,
        host: argv.host,
        seed: argv.seed,
        timeScale: argv.timeScale,
        medianMs: argv.medianMs,
        sigma: argv.sigma,
        corpus: argv.corpus !== undefined ? { dir: argv.corpus } : {},
        quota: { limit: argv.quotaLimit },
        sharingEnabled: argv.sharing,
        legacy: { followUpReply: argv.legacyFollowupReply },
        agent: { tokenLimitRate: argv.tokenLimitRate, internalErrorRate: argv.internalErrorRate },
        faults: { rate429: argv.faultRate429, rate500: argv.faultRate500, rate503: argv.faultRate503, rateReset: argv.faultRateReset },
      });
    } catch (error) {
      throw new UsageError(`cannot start the emulator: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const info = { url: emulator.url, tokens: emulator.tokens, timeScale: argv.timeScale, corpus: emulator.corpus.root };
    process.stdout.write(
      argv.json
        ? `${JSON.stringify(info)}\n`
        : `dsbench emulator listening on ${emulator.url} (time scale ${argv.timeScale}, corpus ${emulator.corpus.root})\n` +
            emulator.tokens.map((t) => `  token ${t.token}  user ${t.username} (${t.userId})  scopes ${t.scopes.join(', ')}\n`).join('') +
            `Try: SRC_ENDPOINT=${emulator.url} SRC_ACCESS_TOKEN=${emulator.adminToken} dsbench ask "How does yaml report parse errors?"\n`,
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await emulator.stop();
  },
};
