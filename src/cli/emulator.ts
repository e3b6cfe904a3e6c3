import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { ZodError } from 'zod';
import { ADMIN_PREFIX, REALISTIC, formatLogEntry, startEmulator, type EmulatorOptions, type RequestLogEntry, type RunningEmulator } from '../emulator/index.js';
import { UsageError } from '../errors/errors.js';
import { type GlobalArgs, pathOption } from './global-options.js';
import { commandUsage } from './command-usage.js';
import { onStopSignal } from './signals.js';
import type { CommandContext } from './io.js';

/** A demo's pace: a median 30 s answer in 3 s, so the suggested `ask` shows its progress and ends soon. */
export const DEMO_TIME_SCALE = 0.1;

/** The plain draws' flags and their defaults: a noise profile draws these itself (docs/emulator.md). */
const PLAIN_DRAWS = { medianMs: 30_000, sigma: 0.8, tokenLimitRate: 0, internalErrorRate: 0, outputLimitRate: 0 } as const;

/** The emulator's settings by their place in its options, named as the flags that set them. */
const FLAGS: Record<string, string> = {
  port: '--port',
  host: '--host',
  seed: '--seed',
  timeScale: '--time-scale',
  medianMs: '--median-ms',
  sigma: '--sigma',
  'corpus.dir': '--corpus',
  'quota.limit': '--quota-limit',
  'agent.tokenLimitRate': '--token-limit-rate',
  'agent.internalErrorRate': '--internal-error-rate',
  'agent.outputLimitRate': '--output-limit-rate',
  'faults.rate429': '--fault-rate-429',
  'faults.rate500': '--fault-rate-500',
  'faults.rate503': '--fault-rate-503',
  'faults.rateReset': '--fault-rate-reset',
  'faults.retryAfterSeconds': '--retry-after',
  'faults.rateProxy502': '--fault-rate-502',
  'faults.rateSlow': '--fault-rate-slow',
  'faults.slowMs': '--slow-ms',
  'faults.rateResetAfterAction': '--fault-rate-reset-after',
  'noise.profile': '--noise',
  'noise.serviceSeed': '--noise-service-seed',
};

export function flagProblems(error: ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.join('.');
      return `${FLAGS[where] ?? where}: ${issue.message}`;
    })
    .join('; ');
}

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
  llmGated: boolean;
  productVersion?: string | undefined;
  legacyFollowupReply: 'question' | 'conversation';
  tokenLimitRate: number;
  internalErrorRate: number;
  outputLimitRate: number;
  noise: 'none' | 'realistic';
  noiseServiceSeed: string;
  faultRate429: number;
  faultRate500: number;
  faultRate503: number;
  faultRateReset: number;
  faultRate502: number;
  faultRateSlow: number;
  slowMs: number;
  faultRateResetAfter: number;
  retryAfter: number;
  streamCutRate: number;
  streamStallRate: number;
  streamMalformedRate: number;
  stream401Rate: number;
  stream500Rate: number;
  streamStallMs: number;
  clockOffsetMs: number;
  actDelayMs: number;
  log: boolean;
}

/** The admin interface's token comes from the environment only: a flag value would show in `ps`. */
export const ADMIN_TOKEN_ENV = 'DSBENCH_EMULATOR_ADMIN_TOKEN';

export const emulatorCommand = (cli: CommandContext): CommandModule<GlobalArgs, EmulatorArgs> => ({
  ...commandUsage.emulator,
  builder: (y: Argv<GlobalArgs>) =>
    y
      .option('port', { type: 'number', default: 3080, describe: 'Port to listen on (0: any free port)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' })
      .option('seed', { type: 'string', default: '1', describe: 'Seed of every random choice (same seed, same answers and times)' })
      .option('time-scale', { type: 'number', default: DEMO_TIME_SCALE, describe: `Real time per emulated time: the default ${DEMO_TIME_SCALE} makes a 30 s answer take 3 s (a demo's pace); 1 is real time` })
      .option('median-ms', { type: 'number', default: PLAIN_DRAWS.medianMs, describe: 'Median answer time (log-normal), emulated ms' })
      .option('sigma', { type: 'number', default: PLAIN_DRAWS.sigma, describe: 'Log-normal sigma of answer times' })
      .option('corpus', { ...pathOption(cli), type: 'string', describe: 'Folder of repositories laid out <host>/<owner>/<name> (default: dsbench\'s node_modules)' })
      .option('quota-limit', { type: 'number', default: -1, describe: 'Credits per user before quota errors (-1: unlimited)' })
      .option('sharing', { type: 'boolean', default: true, describe: 'Allow reading other users\' conversations by read token' })
      .option('llm-gated', { type: 'boolean', default: false, describe: 'Gate the LLM API (404 under /.api/llm), as releases from 6.8 do without the license feature; PATCH /-/emulator/llm switches it' })
      .option('product-version', { type: 'string', describe: 'What the GraphQL query site { productVersion } answers, the version a run records (default: dsbench\'s own version)' })
      .option('legacy-followup-reply', { choices: ['question', 'conversation'] as const, default: 'question' as const, describe: 'What a legacy follow-up returns: the new question alone (as published) or the whole conversation (as a newer client reads it)' })
      .option('token-limit-rate', { type: 'number', default: PLAIN_DRAWS.tokenLimitRate, describe: 'Fraction of questions ending in a token-limit error' })
      .option('internal-error-rate', { type: 'number', default: PLAIN_DRAWS.internalErrorRate, describe: 'Fraction of questions ending in an internal error' })
      .option('output-limit-rate', { type: 'number', default: PLAIN_DRAWS.outputLimitRate, describe: 'Fraction of answers cut by the output limit (ERROR_INTERNAL with the partial answer)' })
      .option('fault-rate-429', { type: 'number', default: 0, describe: 'Fraction of requests answered 429 with Retry-After' })
      .option('fault-rate-500', { type: 'number', default: 0, describe: 'Fraction of requests answered 500' })
      .option('fault-rate-503', { type: 'number', default: 0, describe: 'Fraction of requests answered 503' })
      .option('fault-rate-reset', { type: 'number', default: 0, describe: 'Fraction of connections reset before the server acts' })
      .option('fault-rate-reset-after', { type: 'number', default: 0, describe: 'Fraction of connections reset after the server acted (the client cannot know the outcome)' })
      .option('fault-rate-502', { type: 'number', default: 0, describe: 'Fraction of requests answered by a proxy\'s HTML 502 page' })
      .option('fault-rate-slow', { type: 'number', default: 0, describe: 'Fraction of requests delayed by --slow-ms before being handled' })
      .option('slow-ms', { type: 'number', default: 2_000, describe: 'Real ms a slow request waits' })
      .option('retry-after', { type: 'number', default: 1, describe: 'Retry-After seconds of a 429' })
      .option('stream-cut-rate', { type: 'number', default: 0, describe: 'Fraction of search streams closed after the first events, without done' })
      .option('stream-stall-rate', { type: 'number', default: 0, describe: 'Fraction of search streams that go silent for --stream-stall-ms after the first events' })
      .option('stream-stall-ms', { type: 'number', default: 10_000, describe: 'Real ms a stalled stream stays silent' })
      .option('stream-malformed-rate', { type: 'number', default: 0, describe: 'Fraction of search streams starting with an event that is not valid JSON' })
      .option('stream-401-rate', { type: 'number', default: 0, describe: 'Fraction of search streams refused with a plain-text 401' })
      .option('stream-500-rate', { type: 'number', default: 0, describe: 'Fraction of search streams refused with a plain-text 500' })
      .option('clock-offset-ms', { type: 'number', default: 0, describe: 'Offset of the server\'s clock (Date headers and timestamps): -600000 is 10 minutes behind' })
      .option('act-delay-ms', { type: 'number', default: 0, describe: 'Real ms between accepting a writing request and acting on it' })
      .option('noise', { type: 'string', choices: ['none', 'realistic'], default: 'none', describe: "A service's own noise: realistic gives random errors, latency effects per question and night, and flaky answers (docs/emulator.md); --seed is then the night" })
      .option('noise-service-seed', { type: 'string', default: 'service', describe: 'With --noise: which questions are slow or flaky (keep it across nights)' })
      .option('log', { type: 'boolean', default: false, describe: 'Log each request on stderr: method, path, status, latency, operation (never a credential)' }) as unknown as Argv<EmulatorArgs>,
  handler: async (argv: ArgumentsCamelCase<EmulatorArgs>) => {
    const adminToken = cli.env[ADMIN_TOKEN_ENV] || undefined;
    const hooks = argv.log ? { onRequest: (entry: RequestLogEntry) => cli.stderr.write(`${formatLogEntry(entry)}\n`) } : {};
    refuseIgnoredDraws(argv);
    let emulator;
    try {
      emulator = await startEmulator(emulatorOptions(argv, adminToken), hooks);
    } catch (error) {
      throw new UsageError(`cannot start the emulator: ${error instanceof ZodError ? flagProblems(error) : error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    cli.stdout.write(listening(emulator, argv, adminToken));
    // Serves until SIGINT, SIGTERM or SIGHUP; a second one while stopping exits at once (code 4).
    let release = (): void => {};
    await new Promise<void>((resolve) => {
      release = onStopSignal(() => resolve());
    });
    release();
    await emulator.stop();
  },
});

/** A noise profile draws answer times and errors itself: the plain draws' flags set beside it would be ignored, so they are refused. */
function refuseIgnoredDraws(argv: ArgumentsCamelCase<EmulatorArgs>): void {
  if (argv.noise === 'none') return;
  const given = (Object.keys(PLAIN_DRAWS) as Array<keyof typeof PLAIN_DRAWS>).filter((k) => argv[k] !== PLAIN_DRAWS[k]).map((k) => FLAGS[k] ?? FLAGS[`agent.${k}`]!);
  if (given.length === 0) return;
  throw new UsageError(
    `${given.join(', ')} with --noise ${argv.noise}: the noise profile draws answer times and errors itself (median 150 s, 4% token-limit and 1.5% output-limit errors; docs/emulator.md, "Noise profiles"), ` +
      `so ${given.length === 1 ? 'it' : 'they'} would be ignored. Leave ${given.length === 1 ? 'it' : 'them'} out, or use --noise none to set answer times and errors yourself`,
  );
}

/** The emulator's settings from the command's flags. */
function emulatorOptions(argv: ArgumentsCamelCase<EmulatorArgs>, adminToken: string | undefined): EmulatorOptions {
  return {
    port: argv.port,
    host: argv.host,
    seed: argv.seed,
    timeScale: argv.timeScale,
    medianMs: argv.medianMs,
    sigma: argv.sigma,
    corpus: argv.corpus !== undefined ? { dir: argv.corpus } : {},
    quota: { limit: argv.quotaLimit },
    sharingEnabled: argv.sharing,
    llmGated: argv.llmGated,
    ...(argv.productVersion !== undefined && { productVersion: argv.productVersion }),
    legacy: { followUpReply: argv.legacyFollowupReply },
    agent: { tokenLimitRate: argv.tokenLimitRate, internalErrorRate: argv.internalErrorRate, outputLimitRate: argv.outputLimitRate },
    noise: { profile: argv.noise, serviceSeed: argv.noiseServiceSeed },
    faults: {
      rate429: argv.faultRate429,
      retryAfterSeconds: argv.retryAfter,
      rate500: argv.faultRate500,
      rate503: argv.faultRate503,
      rateReset: argv.faultRateReset,
      rateProxy502: argv.faultRate502,
      rateSlow: argv.faultRateSlow,
      slowMs: argv.slowMs,
      rateResetAfterAction: argv.faultRateResetAfter,
      clockOffsetMs: argv.clockOffsetMs,
      actDelayMs: argv.actDelayMs,
    },
    stream: {
      faults: {
        rates: {
          cutBeforeDone: argv.streamCutRate,
          stall: argv.streamStallRate,
          malformedEvent: argv.streamMalformedRate,
          status401: argv.stream401Rate,
          status500: argv.stream500Rate,
        },
        stallMs: argv.streamStallMs,
      },
    },
    ...(adminToken !== undefined && { admin: { token: adminToken } }),
  };
}

/** What a started emulator prints: its address and tokens (JSON with --json), its speed, and how to try it. */
function listening(emulator: RunningEmulator, argv: ArgumentsCamelCase<EmulatorArgs>, adminToken: string | undefined): string {
  const admin = adminToken === undefined ? null : `${emulator.url}${ADMIN_PREFIX}`;
  if (argv.json) return `${JSON.stringify({ url: emulator.url, tokens: emulator.tokens, timeScale: argv.timeScale, corpus: emulator.corpus.root, admin })}\n`;
  return (
    `dsbench emulator listening on ${emulator.url} (time scale ${argv.timeScale}, corpus ${emulator.corpus.root})\n` +
    emulator.tokens.map((t) => `  token ${t.token}  user ${t.username} (${t.userId})  scopes ${t.scopes.join(', ')}\n`).join('') +
    `${argv.noise === 'realistic' ? speedNote(argv.timeScale, REALISTIC.medianMs, true) : speedNote(argv.timeScale, argv.medianMs)}\n` +
    (admin === null
      ? `Admin interface off: set ${ADMIN_TOKEN_ENV} (16+ characters) to turn it on.\n`
      : `Admin interface at ${admin} (counters, log, faults) with Authorization: Bearer $${ADMIN_TOKEN_ENV}\n`) +
    `Try: SRC_ENDPOINT=${emulator.url} SRC_ACCESS_TOKEN=${emulator.adminToken} npx dsbench ask "How does yaml report parse errors?"\n`
  );
}

/** How fast the emulator runs, and how to make it faster; `noise`: the median is a noise profile's, which --median-ms does not set. */
export function speedNote(timeScale: number, medianMs: number, noise = false): string {
  const seconds = (ms: number) => (ms >= 1000 ? `${+(ms / 1000).toPrecision(3)} s` : `${+ms.toPrecision(3)} ms`);
  const faster = timeScale / 100;
  return (
    `Speed: an answer takes ${seconds(medianMs * timeScale)} of real time at the median (${seconds(medianMs)} emulated); ` +
    `stream keep-alives every ${seconds(5000 * timeScale)}. ` +
    `Faster: --time-scale ${faster} (answers in ${seconds(medianMs * faster)}; the wire still reports emulated times)${noise ? '' : ' or a smaller --median-ms'}.`
  );
}
