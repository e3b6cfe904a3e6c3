import { z } from 'zod';
import { VERSION } from '../version.js';
import { CorpusOptionsSchema } from './corpus/corpus.js';
import { NoiseOptionsSchema } from './noise.js';
import { StreamFaultOptionsSchema } from './stream/faults.js';
import { DEFAULT_USERS, EmulatorUserSchema } from './users.js';

// The emulator's settings, plain data only (the CLI's flags map onto them; a test writes them inline).
// Functions a caller plugs in (a search, extra routes, a request listener) are EmulatorHooks (hooks.ts).

export const DEFAULT_LLM_MODELS = [
  'anthropic::2024-10-22::claude-sonnet-4-latest',
  'anthropic::2024-10-22::claude-3-5-haiku-latest',
  'openai::2024-02-01::gpt-4o',
];

const probability = z.number().min(0).max(1);

export const TriggersSchema = z.object({
  tokenLimit: z.string().min(1).default('[[token-limit]]'),
  internalError: z.string().min(1).default('[[internal-error]]'),
  /** The answer outgrows the output limit: ERROR_INTERNAL with the part written so far. */
  outputLimit: z.string().min(1).default('[[output-limit]]'),
  /** The output limit reached before any answer text: ERROR_INTERNAL with no answer (charged for the work). */
  outputLimitNoAnswer: z.string().min(1).default('[[output-limit-no-answer]]'),
  quotaExceeded: z.string().min(1).default('[[quota-exceeded]]'),
  entitlementExceeded: z.string().min(1).default('[[entitlement-exceeded]]'),
  rateLimited: z.string().min(1).default('[[rate-limited]]'),
});

export const AgentOptionsSchema = z
  .object({
    minMs: z.number().positive().default(1_000),
    maxMs: z.number().positive().default(300_000),
    /** Virtual ms after which a question refused up front (quota, entitlement, rate limit) ends. */
    rejectAfterMs: z.number().min(0).default(1_000),
    /** Virtual ms added to the end time to form the retry time of a rate-limited question. */
    rateLimitRetryMs: z.number().min(0).default(60_000),
    tokenLimitRate: probability.default(0),
    internalErrorRate: probability.default(0),
    /** Share of answers stopped by the output limit (ERROR_INTERNAL with a partial answer). */
    outputLimitRate: probability.default(0),
    triggers: TriggersSchema.prefault({}),
    /** Results asked of the search function per query. */
    hitsPerQuery: z.number().int().positive().default(5),
    /** Share of an answer's file links that cite a line past the file's end or another repository's file. */
    badCitationRate: probability.default(0),
  })
  .refine((a) => a.minMs <= a.maxMs, { message: 'agent.minMs must not exceed agent.maxMs' })
  .refine((a) => a.tokenLimitRate + a.internalErrorRate + a.outputLimitRate <= 1, {
    message: 'agent error rates must sum to at most 1',
  });

export const QuotaOptionsSchema = z.object({
  /** Credits per user and period; -1 is unlimited. */
  limit: z.number().int().min(-1).default(-1),
  /** First reset (ISO 8601); later resets follow monthly. Default: start of the next UTC month. */
  resetTime: z.iso.datetime({ offset: true }).optional(),
});

export const FaultRatesSchema = z
  .object({
    rate429: probability.default(0),
    retryAfterSeconds: z.number().int().min(0).default(1),
    rate500: probability.default(0),
    rate503: probability.default(0),
    /** Destroy the socket before the handler acts. */
    rateReset: probability.default(0),
    /** HTML 502 page from a proxy in front of the instance. */
    rateProxy502: probability.default(0),
    /** Delay the request by slowMs real ms, then handle it normally. */
    rateSlow: probability.default(0),
    slowMs: z.number().int().min(0).default(2_000),
    /** Destroy the socket after the handler acted: the client cannot know the outcome. */
    rateResetAfterAction: probability.default(0),
    /** Added to the server's clock (Date headers and every timestamp): -600000 is a server 10 minutes behind. */
    clockOffsetMs: z.number().int().default(0),
    /** Real ms between accepting a writing request (create, follow-up, cancel, delete) and acting on it. */
    actDelayMs: z.number().int().min(0).default(0),
  })
  .refine(
    (f) =>
      f.rate429 + f.rate500 + f.rate503 + f.rateReset + f.rateProxy502 + f.rateSlow + f.rateResetAfterAction <=
      1,
    { message: 'fault rates must sum to at most 1' },
  );

export const EmulatorOptionsSchema = z
  .object({
    host: z.string().default('127.0.0.1'),
    port: z.number().int().min(0).max(65_535).default(0),
    /** Base of share_url, url and answer links; default the server's own URL. */
    publicUrl: z.url().optional(),
    seed: z.union([z.number(), z.string()]).default(1),
    /** Real ms per virtual ms: 0.001 turns a 30 s answer into 30 ms of real time. */
    timeScale: z.number().positive().default(1),
    /** Median of the log-normal processing time of a question, virtual ms. */
    medianMs: z.number().positive().default(30_000),
    sigma: z.number().min(0).default(0.8),
    /** Virtual time at start (ISO 8601); default the real time at start. */
    startTime: z.iso.datetime({ offset: true }).optional(),
    users: z.array(EmulatorUserSchema).min(1).default(DEFAULT_USERS),
    sharingEnabled: z.boolean().default(true),
    /**
     * Contested shapes of the legacy API. A follow-up returns the new Question alone (the only published
     * payload, an early guide) or the whole Conversation (how a newer public client reads it).
     */
    legacy: z.object({ followUpReply: z.enum(['question', 'conversation']).default('question') }).prefault({}),
    quota: QuotaOptionsSchema.prefault({}),
    agent: AgentOptionsSchema.prefault({}),
    faults: FaultRatesSchema.prefault({}),
    /** A service's own noise (latency effects, random errors, flaky answers) in place of the plain draws: docs/emulator.md. */
    noise: NoiseOptionsSchema,
    /** The code the stream searches and the agent cites; default dsbench's own node_modules. */
    corpus: CorpusOptionsSchema.prefault({}),
    /** Pacing and faults of the search stream. */
    stream: z
      .object({
        flushIntervalMs: z.number().int().positive().default(200),
        flushBytes: z.number().int().positive().default(32 * 1024),
        progressIntervalMs: z.number().int().positive().default(5000),
        faults: StreamFaultOptionsSchema.prefault({}),
      })
      .prefault({}),
    /** Model ids of the LLM API (`/.api/llm/models`); the first is the default judge. */
    llmModels: z.array(z.string().min(1)).min(1).default(DEFAULT_LLM_MODELS),
    /** Gate the LLM API (404 under `/.api/llm`), as releases from 6.8 do without the license feature; the admin interface switches it. */
    llmGated: z.boolean().default(false),
    /** What `site { productVersion }` answers on `/.api/graphql`: the instance's version (`6.9.2`); default dsbench's own. */
    productVersion: z.string().min(1).default(VERSION),
    /** The admin interface under /-/emulator/ (counters, request log, fault switches); off without a token. */
    admin: z
      .object({
        token: z.string().min(16, 'the admin token must have at least 16 characters').optional(),
        /** Requests kept in the log. */
        logSize: z.number().int().positive().default(1000),
      })
      .prefault({}),
  })
  .superRefine((o, ctx) => {
    const ids = new Set<number>();
    const tokens = new Set<string>();
    for (const user of o.users) {
      if (ids.has(user.id)) ctx.addIssue({ code: 'custom', message: `duplicate user id ${user.id}` });
      ids.add(user.id);
      for (const grant of user.tokens) {
        if (tokens.has(grant.token)) ctx.addIssue({ code: 'custom', message: 'duplicate token' });
        tokens.add(grant.token);
      }
    }
  });

export type EmulatorOptions = z.input<typeof EmulatorOptionsSchema>;
export type ResolvedEmulatorOptions = z.output<typeof EmulatorOptionsSchema>;
export type AgentOptions = z.output<typeof AgentOptionsSchema>;
export type FaultRates = z.output<typeof FaultRatesSchema>;
export type QuotaOptions = z.output<typeof QuotaOptionsSchema>;
