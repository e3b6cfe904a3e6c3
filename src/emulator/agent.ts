import { composeAnswer, deriveQueries, type Answer } from './answer.js';
import type { AgentOptions } from './options.js';
import { createRng, hashSeed, type Rng } from './random.js';
import { computeUsage, zeroUsage, type Usage } from './usage.js';

export interface SearchHit {
  repository: string;
  path: string;
  lineNumber: number;
  preview: string;
}

/** Code search the agent uses for its facts; the integrator plugs in a corpus search. */
export type AgentSearch = (query: string, limit: number) => Promise<SearchHit[]>;

export type FailureKind =
  | 'token-limit'
  | 'internal'
  | 'quota-exceeded'
  | 'entitlement-exceeded'
  | 'rate-limited'
  | 'cancelled';

export type Outcome =
  | { kind: 'completed'; answer: Answer; usage: Usage }
  | { kind: 'failed'; failure: FailureKind; usage: Usage };

export interface AgentRun {
  /** Sampled processing time (virtual ms): the outcome is due this long after the question. */
  processingMs: number;
  /** Never rejects: a failing search becomes an internal error. */
  outcome: Promise<Outcome>;
}

export interface AgentConfig {
  seed: number | string;
  medianMs: number;
  sigma: number;
  agent: AgentOptions;
  search: AgentSearch;
  /** Base URL of the links in answers. */
  linkBase: string;
}

const QUERIES_PER_QUESTION = 3;

/** A deterministic stand-in for the instance's agentic search. */
export class FakeAgent {
  /** How often each question text was asked, so repeats get their own but reproducible samples. */
  private readonly asked = new Map<string, number>();

  constructor(private readonly config: AgentConfig) {}

  /** Quota is the service's to judge; triggers and error rates are decided here. */
  start(text: string, quotaExhausted: boolean): AgentRun {
    const occurrence = this.asked.get(text) ?? 0;
    this.asked.set(text, occurrence + 1);
    const rng = createRng(hashSeed(this.config.seed, text, occurrence));
    const { agent, medianMs, sigma } = this.config;
    const sampled = Math.round(Math.min(agent.maxMs, Math.max(agent.minMs, rng.logNormal(medianMs, sigma))));
    const failureDraw = rng.next();

    const refusal = this.refusal(text, quotaExhausted);
    if (refusal) {
      const usage = zeroUsage(agent.rejectAfterMs);
      return { processingMs: agent.rejectAfterMs, outcome: Promise.resolve({ kind: 'failed', failure: refusal, usage }) };
    }
    return { processingMs: sampled, outcome: this.research(text, sampled, this.midRunFailure(text, failureDraw), rng) };
  }

  /** Failures decided before any work: nothing is searched and nothing is charged. */
  private refusal(text: string, quotaExhausted: boolean): FailureKind | undefined {
    const { triggers } = this.config.agent;
    if (text.includes(triggers.quotaExceeded)) return 'quota-exceeded';
    if (text.includes(triggers.entitlementExceeded)) return 'entitlement-exceeded';
    if (text.includes(triggers.rateLimited)) return 'rate-limited';
    return quotaExhausted ? 'quota-exceeded' : undefined;
  }

  private midRunFailure(text: string, draw: number): FailureKind | undefined {
    const { triggers, tokenLimitRate, internalErrorRate } = this.config.agent;
    if (text.includes(triggers.tokenLimit)) return 'token-limit';
    if (text.includes(triggers.internalError)) return 'internal';
    if (draw < tokenLimitRate) return 'token-limit';
    if (draw < tokenLimitRate + internalErrorRate) return 'internal';
    return undefined;
  }

  private async research(
    text: string,
    timeMillis: number,
    failure: FailureKind | undefined,
    rng: Rng,
  ): Promise<Outcome> {
    const queries = deriveQueries(text, QUERIES_PER_QUESTION);
    const internal: Outcome = { kind: 'failed', failure: 'internal', usage: zeroUsage(timeMillis, queries.length) };
    try {
      // A failing tool call is something an agent works around; only a search that never works is fatal.
      const results = await Promise.allSettled(
        queries.map(async (q) => this.config.search(q, this.config.agent.hitsPerQuery)),
      );
      if (results.length > 0 && results.every((r) => r.status === 'rejected')) return internal;
      const hits = dedupe(results.flatMap((r) => (r.status === 'fulfilled' ? r.value : [])));
      const base = { timeMillis, toolCalls: queries.length, hits: hits.length, questionChars: text.length };
      if (failure) {
        // The run spent tokens before failing, so it reports and is charged for them.
        return { kind: 'failed', failure, usage: computeUsage({ ...base, outputChars: 0 }, rng) };
      }
      const answer = composeAnswer(text, queries, hits, this.config.linkBase);
      return { kind: 'completed', answer, usage: computeUsage({ ...base, outputChars: answer.markdown.length }, rng) };
    } catch {
      return internal;
    }
  }
}

function dedupe(hits: SearchHit[]): SearchHit[] {
  const seen = new Set<string>();
  return hits.filter((h) => {
    const key = `${h.repository}\u0000${h.path}\u0000${h.lineNumber}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
