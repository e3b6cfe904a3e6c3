// The fake agent over the default corpus (dsbench's own node_modules): repository scoping, identifiers
// cited at their definition, conversation context, determinism and consistent stats.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linksIn } from '../../src/answer-links.js';
import { FakeAgent } from '../../src/emulator/agent.js';
import type { AgentSearch } from '../../src/emulator/agent-search.js';
import { Corpus, createAgentSearch } from '../../src/emulator/corpus/index.js';
import { AgentOptionsSchema } from '../../src/emulator/options.js';
import type { Outcome } from '../../src/emulator/outcome.js';
import { ask, emulator, FAST, legacy, legacySettled, NODE_MODULES, SMALL_CORPUS, stopAll } from './helpers.js';

const LINK_BASE = 'https://sourcegraph.test';
const UNDICI = 'github.com/npm/undici';
const ASK = 'Where is RetryHandler implemented in undici?';

let corpus: Corpus;

beforeAll(async () => {
  corpus = await Corpus.open();
});

afterAll(stopAll);

/**
 * The corpus search, recording every query the agent runs, with the default file budget.
 */
function recordingSearch(queries: string[] = []): AgentSearch {
  const search = createAgentSearch(corpus);
  return Object.assign(async (query: string, limit: number) => {
    queries.push(query);
    return search(query, limit);
  }, { repositories: search.repositories });
}

function agent(search: AgentSearch = recordingSearch(), seed: number | string = 1): FakeAgent {
  return new FakeAgent({ seed, medianMs: 30_000, sigma: 0.8, agent: AgentOptionsSchema.parse({}), search, linkBase: LINK_BASE });
}

function completed(outcome: Outcome) {
  if (outcome.kind !== 'completed') throw new Error(`expected an answer, got ${outcome.failure}`);
  return outcome;
}

/** Every file link with a line of an answer, in order: repository, path and 1-based line. */
function fileLinks(markdown: string): Array<{ repository: string; path: string; line: number }> {
  return linksIn(markdown).flatMap((l) => (l.kind === 'file' && l.startLine !== undefined ? [{ repository: l.repository, path: l.path!, line: l.startLine }] : []));
}

/** The text of a cited line, read from the corpus folder (default layout: github.com/npm/<pkg>). */
function citedLine(link: { repository: string; path: string; line: number }): string {
  const pkg = link.repository.replace(/^github\.com\/npm\//, '');
  return readFileSync(path.join(corpus.root, pkg, link.path), 'utf8').split('\n')[link.line - 1] ?? '';
}

describe('a question naming a repository and an identifier', () => {
  it('scopes every search to the repository and cites the line that defines the identifier', async () => {
    const queries: string[] = [];
    const { answer, usage } = completed(await agent(recordingSearch(queries)).start(ASK, [], false).outcome);

    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) expect(q).toMatch(/^repo:\^github\\\.com\/npm\/undici\$ /);
    expect(queries[0]).toMatch(/ RetryHandler$/);
    expect(usage.toolCalls).toBe(queries.length);

    expect(answer.sources[0]).toEqual({ type: 'Repository', link: `/${UNDICI}`, label: UNDICI });
    expect(answer.markdown).toMatch(/^`RetryHandler` is defined in \[lib\/[\w/-]+\.js:\d+\]\(/m);
    const [first] = fileLinks(answer.markdown);
    expect(first).toMatchObject({ repository: UNDICI, path: expect.stringMatching(/^lib\//) });
    expect(citedLine(first!)).toMatch(/class RetryHandler\b/);
    expect(answer.followups).toHaveLength(2);
    for (const f of answer.followups) expect(f).toContain('RetryHandler');
    expect(answer.followups.join(' ')).toContain(UNDICI);
  });

  it('cites the identifier of the brief question among the sources first, and reaches archived repositories', async () => {
    const a = agent();
    const retry = completed(await a.start("Where is the retry policy of undici's fetch implemented (RetryHandler)?", [], false).outcome);
    expect(retry.answer.sources.map((s) => s.label)).toEqual([UNDICI]);
    expect(retry.answer.markdown).toContain('`RetryHandler` is defined in');
    expect(citedLine(fileLinks(retry.answer.markdown)[0]!)).toMatch(/class RetryHandler\b/);

    // github.com/npm/yaml is archived in the default corpus; naming it still scopes to it.
    const yaml = completed(await a.start('Where is parseDocument defined in yaml?', [], false).outcome);
    expect(yaml.answer.sources[0]!.label).toBe('github.com/npm/yaml');
    expect(yaml.answer.markdown).toMatch(/^`parseDocument` is defined in /m);
    expect(citedLine(fileLinks(yaml.answer.markdown)[0]!)).toMatch(/function parseDocument\b/);
  });

  it('takes full names and @scope/name forms, and lists every named repository first', async () => {
    const queries: string[] = [];
    const { answer } = completed(
      await agent(recordingSearch(queries)).start('How do github.com/npm/zod and @types/node define `ZodString`?', [], false).outcome,
    );
    for (const q of queries) expect(q).toMatch(/^repo:\^\(\?:github\\\.com\/npm\/zod\|github\\\.com\/types\/node\)\$ archived:yes fork:yes /);
    expect(answer.sources.slice(0, 2).map((s) => s.label)).toEqual(['github.com/npm/zod', 'github.com/types/node']);
    expect(answer.markdown).toContain('`ZodString` is defined in');
  });
});

describe('conversation context', () => {
  it('answers a follow-up that names no repository within the earlier one, on the HTTP API', async () => {
    const e = await emulator({ ...FAST, publicUrl: LINK_BASE }, { search: recordingSearch() });
    const { id } = await ask(e, ASK);
    const first = (await legacySettled(e, id)).json.questions[0];
    expect(first.sources[0].label).toBe(UNDICI);

    for (const followUp of ['Which status codes does it retry?', 'Which status codes does RetryHandler retry?']) {
      expect((await legacy(e, 'POST', `/${id}/questions`, { conversation_id: id, question: followUp })).status).toBe(202);
      const questions = (await legacySettled(e, id)).json.questions;
      const q = questions[questions.length - 1];
      expect(q.question).toBe(followUp);
      expect(q.status).toBe('completed');
      expect(q.sources[0]).toEqual({ type: 'Repository', link: `/${UNDICI}`, label: UNDICI });
      expect(q.answer).toContain('Continuing from the earlier question');
      expect(q.answer).toContain('`RetryHandler` is defined in');
      const links = fileLinks(q.answer);
      expect(links.length).toBeGreaterThan(0);
      for (const link of links) expect(link.repository).toBe(UNDICI);
      // "status codes" is looked up as `statusCodes` in the file that defines RetryHandler.
      expect(q.answer).toContain('`statusCodes`');
    }
  });

  it('lets a question that names another repository change the scope', async () => {
    const queries: string[] = [];
    const a = agent(recordingSearch(queries));
    completed(await a.start('How does `pLimit` queue work in p-limit?', [ASK], false).outcome);
    for (const q of queries) expect(q).toMatch(/^repo:\^github\\\.com\/npm\/p-limit\$ /);
  });
});

describe('determinism', () => {
  it('gives the same answer and processing time for the same seed and conversation', async () => {
    const conversation = [ASK, 'Which status codes does it retry?'];
    const replay = async (seed: number) => {
      const a = agent(recordingSearch(), seed);
      const runs = [];
      for (let i = 0; i < conversation.length; i++) {
        const run = a.start(conversation[i]!, conversation.slice(0, i), false);
        runs.push({ processingMs: run.processingMs, outcome: await run.outcome });
      }
      return runs;
    };
    const a = await replay(7);
    const b = await replay(7);
    expect(b).toEqual(a);
    expect(completed(a[1]!.outcome).answer.markdown).toContain('RetryHandler');
    const c = await replay(8);
    expect(c.map((r) => r.processingMs)).not.toEqual(a.map((r) => r.processingMs));
    // A follow-up is its own sample: the same text after another question is timed afresh.
    const alone = agent(recordingSearch(), 7).start(conversation[1]!, [], false);
    expect(alone.processingMs).not.toBe(a[1]!.processingMs);
    await alone.outcome;
  });
});

describe('a question naming no repository', () => {
  // How fast is the corpus benchmarks' concern; here, that it completes (within the test's bound).
  it('still completes, searching the whole corpus', async () => {
    const queries: string[] = [];
    const { answer, usage } = completed(await agent(recordingSearch(queries)).start('How are slow questions retried?', [], false).outcome);
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) expect(q).not.toContain('repo:');
    expect(usage.toolCalls).toBe(queries.length);
    expect(answer.followups).toHaveLength(2);
    expect(answer.markdown).toContain(`I ran ${queries.length} searches in the indexed repositories`);
  });
});

describe('stats', () => {
  it('keep no sum the platform does not keep, with one tool call per search, on the HTTP API with the default search', async () => {
    const e = await emulator({ ...FAST, corpus: NODE_MODULES });
    for (const question of [ASK, 'Where is nothingLikeThisExists defined in undici?', 'How are slow questions retried?']) {
      const { id } = await ask(e, question);
      const q = (await legacySettled(e, id)).json.questions[0];
      const s = q.stats;
      expect(q.status).toBe('completed');
      // As in the documentation's example: input is not prompt + cached + cache creation.
      expect(s.total_input_tokens).not.toBe(s.prompt_tokens + s.cached_tokens + s.cache_creation_input_tokens);
      expect(s.total_input_tokens).toBeGreaterThan(s.prompt_tokens);
      expect(s.total_tokens).toBeGreaterThan(s.total_input_tokens);
      // Credits per step, not per 10,000 tokens.
      expect(s.credits).toBeGreaterThan(s.tool_calls);
      expect(s.credits).toBeLessThanOrEqual(1 + 2 * s.tool_calls);
      expect(s.prompt_tokens).toBe(Math.ceil(question.length / 4));
      expect(s.tool_calls).toBeGreaterThan(0);
      // The answer says how many searches it ran: the same number as the tool calls.
      expect(q.answer).toContain(`I ran ${s.tool_calls} search`);
    }
    // Three answers over the real corpus, each searched to its work budget: slow on a busy machine.
  }, 60_000);
});

describe('a question asking which files use an identifier', () => {
  it('lists the files the index finds, each linked at its first use as real answers link: /r/<repo>@<rev>/-/blob/<path>?L<line>', async () => {
    const small = await Corpus.open(SMALL_CORPUS);
    const { answer } = completed(await agent(createAgentSearch(small)).start('Which files use retryPolicy in github.com/acme/app?', [], false).outcome);
    expect(answer.markdown).toContain('`retryPolicy` is used in 3 files of github.com/acme/app:');
    const paragraph = answer.markdown.slice(answer.markdown.indexOf('`retryPolicy` is used in')).split('\n\n').slice(0, 2).join('\n');
    const listed = paragraph.match(/^\d+\. \[[^\]]+\]\([^)]+\)/gm) ?? [];
    expect(listed).toHaveLength(3);
    for (const line of listed) expect(line).toMatch(new RegExp(`\\(${LINK_BASE}/r/github\\.com/acme/app@[0-9a-f]{40}/-/blob/[\\w/]+\\.\\w+\\?L\\d+\\)$`));
    // The product's own link parser reads them as file citations at the line of the first use.
    const cited = fileLinks(listed.join('\n')).map((l) => `${l.repository}/${l.path}:${l.line}`);
    expect(cited.sort()).toEqual(['github.com/acme/app/README.md:3', 'github.com/acme/app/src/client.js:1', 'github.com/acme/app/src/retry.js:2']);
  });
});
