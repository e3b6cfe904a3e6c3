import { z } from 'zod';
import type { Answer } from './answer.js';
import { createRng, hashSeed, type Rng } from './random.js';

// A service's own noise, for rehearsing verdicts: what a nightly comparison of an unchanged instance sees.
// Figures from 100 real versioned-API questions (docs/emulator.md, "Noise profiles"):
// - errors at random: 4% end in a token-limit error, 1% in ERROR_INTERNAL for the output's length after some
//   answer text (truncated), 0.5% in the same error before any (truncated-no-answer: no real sample had one,
//   the rate is a guess at "rare but seen", which the instance's runbook alerts on at 3 in 15 minutes);
// - latency of 1.5 to 3.5 minutes for most questions: a log-normal around 150 s with four effects, one
//   per question (the same every night: some questions are slow), one per night (the whole instance is a
//   little slower or faster tonight), one per question and night (the repeats of a question on one night
//   share it: what makes them correlated) and one per asking;
// - flaky answers: a third of the questions get a grounded answer only half the time; otherwise the
//   agent answers without finding anything, with no links or sources.
// The service's character (which questions are slow or flaky) comes from `serviceSeed`, the same every
// night; the night's draws from the emulator's seed, so each night is a new seed over the same service.

export const NOISE_PROFILES = ['none', 'realistic'] as const;

export const NoiseOptionsSchema = z
  .object({
    profile: z.enum(NOISE_PROFILES).default('none'),
    /** Which questions are slow or flaky: keep it across nights; the emulator's seed is the night. */
    serviceSeed: z.union([z.number(), z.string()]).default('service'),
    /** A regression to rehearse (or to check that a gate catches): changes the profile's figures. */
    regression: z
      .object({
        /** Token-limit errors per asking (the profile's 4% otherwise). */
        tokenLimitRate: z.number().min(0).max(0.99).optional(),
        /** Every latency times this. */
        latencyFactor: z.number().positive().optional(),
        /** Chance that a flaky question's answer is grounded (0: flaky questions always fail). */
        flakyGroundedRate: z.number().min(0).max(1).optional(),
      })
      .prefault({}),
  })
  .prefault({});
export type NoiseOptions = z.output<typeof NoiseOptionsSchema>;

export interface NoiseProfile {
  tokenLimitRate: number;
  outputLengthRate: number;
  /** The output limit reached before any answer text. */
  outputNoAnswerRate: number;
  medianMs: number;
  /** Sigmas of the log-normal effects: per question, per night, per question and night, per asking. */
  questionSigma: number;
  nightSigma: number;
  questionNightSigma: number;
  itemSigma: number;
  flakyShare: number;
  /** Chance that a flaky question's answer is grounded. */
  flakyGroundedRate: number;
}

export const REALISTIC: NoiseProfile = {
  tokenLimitRate: 0.04,
  outputLengthRate: 0.01,
  outputNoAnswerRate: 0.005,
  medianMs: 150_000,
  questionSigma: 0.25,
  nightSigma: 0.03,
  questionNightSigma: 0.15,
  itemSigma: 0.08,
  flakyShare: 1 / 3,
  flakyGroundedRate: 0.5,
};

/** What the noise decides for one asking of a question. */
export interface NoisyDraw {
  processingMs: number;
  /** output-limit: ERROR_INTERNAL for the output's length, with the partial answer; -no-answer: without one. */
  failure: 'token-limit' | 'output-limit' | 'output-limit-no-answer' | undefined;
  /** A flaky question's bad draw: the answer is not grounded. */
  ungrounded: boolean;
}

export class ServiceNoise {
  private readonly night: number;

  constructor(
    readonly profile: NoiseProfile,
    private readonly serviceSeed: number | string,
    private readonly nightSeed: number | string,
  ) {
    this.night = normal(createRng(hashSeed(nightSeed, 'night')));
  }

  /** Whether the service is flaky on this question (the same every night). */
  flaky(text: string): boolean {
    return createRng(hashSeed(this.serviceSeed, 'flaky', text)).next() < this.profile.flakyShare;
  }

  draw(text: string, rng: Rng): NoisyDraw {
    const p = this.profile;
    const question = normal(createRng(hashSeed(this.serviceSeed, 'latency', text)));
    const questionNight = normal(createRng(hashSeed(this.nightSeed, 'latency', text)));
    const logMs = Math.log(p.medianMs) + p.questionSigma * question + p.nightSigma * this.night + p.questionNightSigma * questionNight + p.itemSigma * normal(rng);
    const failureDraw = rng.next();
    const failure = failureKind(failureDraw, p);
    const ungrounded = this.flaky(text) && rng.next() >= p.flakyGroundedRate;
    return { processingMs: Math.round(Math.exp(logMs)), failure, ungrounded };
  }
}

/** One uniform draw split into the profile's failures, in a fixed order. */
function failureKind(draw: number, p: NoiseProfile): NoisyDraw['failure'] {
  if (draw < p.tokenLimitRate) return 'token-limit';
  if (draw < p.tokenLimitRate + p.outputLengthRate) return 'output-limit';
  if (draw < p.tokenLimitRate + p.outputLengthRate + p.outputNoAnswerRate) return 'output-limit-no-answer';
  return undefined;
}

export function serviceNoise(options: NoiseOptions, nightSeed: number | string): ServiceNoise | undefined {
  if (options.profile === 'none') return undefined;
  const r = options.regression;
  const profile: NoiseProfile = {
    ...REALISTIC,
    tokenLimitRate: r.tokenLimitRate ?? REALISTIC.tokenLimitRate,
    medianMs: REALISTIC.medianMs * (r.latencyFactor ?? 1),
    flakyGroundedRate: r.flakyGroundedRate ?? REALISTIC.flakyGroundedRate,
  };
  return new ServiceNoise(profile, options.serviceSeed, nightSeed);
}

/** The answer of an agent that found nothing to ground it: narration, no links, no sources. */
export function ungroundedAnswer(question: string): Answer {
  const subject = question.replace(/\s+/g, ' ').trim().slice(0, 80);
  return {
    title: subject,
    markdown:
      'I searched the indexed repositories but could not find code that settles this question. ' +
      'The names in the question did not match any definition I could open, so I cannot point to a file. ' +
      'Try naming the repository or the function you mean.',
    sources: [],
    followups: ['Which repository should I look in?', 'Can you name the function or type you mean?'],
  };
}

function normal(rng: Rng): number {
  // The log of a log-normal with median 1 and sigma 1 is a standard normal.
  return Math.log(rng.logNormal(1, 1));
}
