import type { AgentSearch, SearchHit } from './agent-search.js';
import { composeAnswer, mainHit, type KeywordFinding, type TargetFinding } from './answer.js';
import type { AgentOptions } from './options.js';
import { garbleCitations } from './citation-noise.js';
import { type NoisyDraw, type ServiceNoise, ungroundedAnswer } from './noise.js';
import { indexParagraph, indexQuestionOf, indexSubject } from './index-answers.js';
import type { FailureKind, Outcome } from './outcome.js';
import { createRng, hashSeed, type Rng } from './random.js';
import { keywordQuery, planResearch, targetQuery } from './research-plan.js';
import { computeUsage, zeroUsage } from './usage.js';

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
  /** A noise profile's latency, errors and flaky answers, in place of the plain draws. */
  noise?: ServiceNoise | undefined;
}

/** A deterministic stand-in for the instance's agentic search. */
export class FakeAgent {
  /** How often each conversation (earlier questions and this one) was asked, so repeats get their own but reproducible samples. */
  private readonly asked = new Map<string, number>();
  private repositoryNames?: Promise<string[]>;

  constructor(private readonly config: AgentConfig) {}

  /**
   * Starts answering `text`, asked after `history` (the conversation's earlier questions, oldest first).
   * The same seed and the same conversation give the same processing time and outcome: with `itemKey`
   * (the client's name for the conversation, e.g. a suite item and repeat) the draws are that item's,
   * whatever order questions arrive in; without it, the n-th asking of the same conversation gets the
   * n-th draws. Quota is the service's to judge; triggers and error rates are decided here.
   */
  start(text: string, history: readonly string[], quotaExhausted: boolean, itemKey?: string): AgentRun {
    const seed = itemKey !== undefined ? hashSeed(this.config.seed, 'item', itemKey, text, ...history) : this.occurrenceSeed(text, history);
    const rng = createRng(seed);
    const { agent, medianMs, sigma } = this.config;
    const plain = Math.round(Math.min(agent.maxMs, Math.max(agent.minMs, rng.logNormal(medianMs, sigma))));
    const failureDraw = rng.next();
    // A separate stream, so that rehearsals without noise keep their draws.
    const noisy = this.config.noise?.draw(text, createRng(hashSeed(seed, 'noise')));
    const sampled = noisy ? Math.max(agent.minMs, noisy.processingMs) : plain;

    const refusal = this.refusal(text, quotaExhausted);
    if (refusal) {
      const usage = zeroUsage(agent.rejectAfterMs);
      return { processingMs: agent.rejectAfterMs, outcome: Promise.resolve({ kind: 'failed', failure: refusal, usage }) };
    }
    const failure = this.midRunFailure(text, failureDraw, noisy?.failure);
    return { processingMs: sampled, outcome: this.research(text, history, sampled, failure, rng, createRng(hashSeed(seed, 'citations')), noisy?.ungrounded === true) };
  }

  private occurrenceSeed(text: string, history: readonly string[]): number {
    const key = [...history, text].join('\u0000');
    const occurrence = this.asked.get(key) ?? 0;
    this.asked.set(key, occurrence + 1);
    // A first question keeps the seed of a conversation-less agent; a follow-up's depends on what preceded it.
    return history.length === 0 ? hashSeed(this.config.seed, text, occurrence) : hashSeed(this.config.seed, text, occurrence, ...history);
  }

  /** Failures decided before any work: nothing is searched and nothing is charged. */
  private refusal(text: string, quotaExhausted: boolean): FailureKind | undefined {
    const { triggers } = this.config.agent;
    if (text.includes(triggers.quotaExceeded)) return 'quota-exceeded';
    if (text.includes(triggers.entitlementExceeded)) return 'entitlement-exceeded';
    if (text.includes(triggers.rateLimited)) return 'rate-limited';
    return quotaExhausted ? 'quota-exceeded' : undefined;
  }

  private midRunFailure(text: string, draw: number, noisy: NoisyDraw['failure']): FailureKind | undefined {
    const { triggers, tokenLimitRate, internalErrorRate, outputLimitRate } = this.config.agent;
    if (text.includes(triggers.tokenLimit)) return 'token-limit';
    if (text.includes(triggers.internalError)) return 'internal';
    if (text.includes(triggers.outputLimit)) return 'output-limit';
    if (text.includes(triggers.outputLimitNoAnswer)) return 'output-limit-no-answer';
    if (this.config.noise) return noisy;
    if (draw < tokenLimitRate) return 'token-limit';
    if (draw < tokenLimitRate + internalErrorRate) return 'internal';
    if (draw < tokenLimitRate + internalErrorRate + outputLimitRate) return 'output-limit';
    return undefined;
  }

  /**
   * The agent's tool calls: first the identifiers and paths the conversation names, then the
   * question's keywords, inside the file that defines its subject when one was found, else across the
   * scope. Every search counts as a tool call, failed ones included.
   */
  private async research(
    text: string,
    history: readonly string[],
    timeMillis: number,
    failure: FailureKind | undefined,
    rng: Rng,
    citationRng: Rng,
    ungrounded: boolean,
  ): Promise<Outcome> {
    const { search, linkBase } = this.config;
    const limit = this.config.agent.hitsPerQuery;
    let searches = 0;
    let failed = 0;
    const run = async (query: string): Promise<SearchHit[]> => {
      searches++;
      try {
        return await search(query, limit);
      } catch {
        failed++;
        return [];
      }
    };
    try {
      const plan = planResearch(text, history, await this.repositories());
      // Scoped searches are quick and run one after another, each with the machine to itself, so they
      // finish within their work budget; whole-corpus ones have a small budget and run together, so a
      // question that names no repository costs about one search's time per step.
      const each = <T, R>(scoped: boolean, items: readonly T[], f: (item: T) => Promise<R>): Promise<R[]> =>
        scoped ? sequentially(items, f) : Promise.all(items.map(f));
      const scoped = plan.repositories.length > 0;
      // The symbol index first: a definition it knows is where the agent looks before any text search.
      const defined = async (name: string): Promise<SearchHit[]> => {
        if (!scoped || !search.definitions) return [];
        searches++;
        return search.definitions(name, plan.repositories).catch(() => {
          failed++;
          return [];
        });
      };
      const targets: TargetFinding[] = await each(scoped, plan.targets, async (target) => ({
        target,
        hits: dedupe([...(target.kind === 'identifier' ? await defined(target.text) : []), ...(await run(targetQuery(plan, target)))]).slice(0, limit),
      }));
      const asked = indexQuestionOf(text);
      const subject = asked && indexSubject(plan);
      const fromIndex = subject ? await this.indexAnswer(asked, subject, plan, () => searches++, () => failed++) : undefined;
      const within = targets.map(mainHit).find((m) => m !== undefined)?.hit;
      const keywords: KeywordFinding[] = await each(scoped || within !== undefined, plan.keywords, async (keyword) => ({
        keyword,
        hits: await run(keywordQuery(plan, keyword, within)),
        within,
      }));
      // A failing tool call is something an agent works around; only a search that never works is fatal.
      if (searches > 0 && failed === searches) return { kind: 'failed', failure: 'internal', usage: zeroUsage(timeMillis, searches) };
      const hits = dedupe([...targets, ...keywords].flatMap((f) => f.hits)).length;
      const base = { timeMillis, toolCalls: searches, hits, questionChars: text.length };
      if (failure && failure !== 'output-limit') {
        // The run spent tokens before failing (an output limit reached before any text too), so it reports and is charged for them.
        return { kind: 'failed', failure, usage: computeUsage({ ...base, outputChars: 0 }, rng) };
      }
      const told = ungrounded ? ungroundedAnswer(text) : composeAnswer({ question: text, plan, targets, keywords, searches, linkBase });
      const composed = fromIndex && !ungrounded ? { ...told, markdown: `${fromIndex}\n\n${told.markdown}` } : told;
      const answer = { ...composed, markdown: garbleCitations(composed.markdown, this.config.agent.badCitationRate, citationRng, await this.repositories(), linkBase) };
      if (failure) {
        const partial = { ...answer, markdown: cutShort(answer.markdown) };
        return { kind: 'failed', failure, partial, usage: computeUsage({ ...base, outputChars: partial.markdown.length }, rng) };
      }
      return { kind: 'completed', answer, usage: computeUsage({ ...base, outputChars: answer.markdown.length }, rng) };
    } catch {
      return { kind: 'failed', failure: 'internal', usage: zeroUsage(timeMillis, searches) };
    }
  }

  /** The paragraph a usage or count question gets from the index (one more tool call); none when it fails. */
  private async indexAnswer(asked: NonNullable<ReturnType<typeof indexQuestionOf>>, subject: string, plan: ReturnType<typeof planResearch>, called: () => void, failed: () => void): Promise<string | undefined> {
    if (!this.config.search.filesWith) return undefined;
    called();
    return indexParagraph(asked, subject, plan, this.config.search, this.config.linkBase).catch(() => {
      failed();
      return undefined;
    });
  }

  /** The corpus's repository names, asked once; none when the search cannot tell (or fails to). */
  private repositories(): Promise<string[]> {
    this.repositoryNames ??= Promise.resolve()
      .then(() => this.config.search.repositories?.() ?? [])
      .catch(() => []);
    return this.repositoryNames;
  }
}

/** An answer stopped by the output limit: its first part, ending mid-sentence as a cut-off stream does. */
function cutShort(markdown: string): string {
  const at = Math.max(1, Math.floor(markdown.length * 0.6));
  const space = markdown.lastIndexOf(' ', at);
  return markdown.slice(0, space > 0 ? space : at);
}

async function sequentially<T, R>(items: readonly T[], f: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await f(item));
  return results;
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
