import pLimit from 'p-limit';
import { headersFor, type Connection, type Env } from '../config/credentials.js';
import type { ResolvedSuite } from '../config/suite.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import { Transport } from '../http/transport.js';
import { CitationChecker } from './citations.js';
import { gradeItem, needsGrading, type GradedTurn, type GradeOutcome } from './grader.js';
import { JudgeClient, resolveJudgeEndpoint } from './judge-client.js';
import type { GradeStore } from './store.js';

export interface GradingTotals {
  items: number;
  judgeCalls: number;
  cacheHits: number;
  judgeTokens: number;
  /** Turns whose grading failed (judge down, not a verdict, ...). */
  problems: number;
}

export interface RunGradingOptions {
  suite: ResolvedSuite;
  store: GradeStore;
  targets: ReadonlyArray<{ name: string; connection: Connection }>;
  env: Env;
  retry?: Partial<RetryPolicy> | undefined;
  timeoutMs?: number | undefined;
}

interface PerTarget {
  judge: JudgeClient | undefined;
  citations: CitationChecker;
  raw: Transport;
}

/**
 * Grading for one run (live or `dsbench grade`): a judge per target (its own LLM API, or the one
 * external endpoint), one citation checker per target, one judge concurrency limit for the whole run.
 * Made before anything is asked, so a judge that cannot be configured is a usage error up front.
 */
export class RunGrading {
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly perTarget = new Map<string, PerTarget>();
  readonly totals: GradingTotals = { items: 0, judgeCalls: 0, cacheHits: 0, judgeTokens: 0, problems: 0 };

  private constructor(private readonly options: RunGradingOptions) {
    this.limit = pLimit(options.suite.judge.concurrency);
    const needsJudge = options.suite.questions.some((q) => [q.expect, ...q.followups.map((f) => f.expect)].some((e) => e.rubric !== undefined || e.reference !== undefined));
    let external: JudgeClient | undefined;
    for (const t of options.targets) {
      const endpoint = needsJudge ? resolveJudgeEndpoint(options.suite.judge, t.connection, options.env) : undefined;
      let judge: JudgeClient | undefined;
      if (endpoint?.kind === 'external') judge = external ??= new JudgeClient(endpoint, this.transportOptions());
      else if (endpoint) judge = new JudgeClient(endpoint, this.transportOptions());
      const raw = new Transport({ endpoint: t.connection.endpoint, headers: headersFor(t.connection, 'stream'), connections: options.suite.judge.citationConcurrency + 1, ...this.transportOptions() });
      this.perTarget.set(t.name, { judge, raw, citations: new CitationChecker(raw, options.suite.judge.citationConcurrency) });
    }
  }

  /** Undefined when the suite asks for no grading. */
  static create(options: RunGradingOptions): RunGrading | undefined {
    const { suite } = options;
    if (!suite.questions.some((q) => needsGrading(q, suite.judge))) return undefined;
    return new RunGrading(options);
  }

  needs(question: ResolvedSuite['questions'][number]): boolean {
    return needsGrading(question, this.options.suite.judge);
  }

  async grade(runId: number, key: string, target: string, question: ResolvedSuite['questions'][number], turns: readonly GradedTurn[], signal?: AbortSignal): Promise<GradeOutcome> {
    const t = this.perTarget.get(target);
    const outcome = await gradeItem(
      { judge: this.options.suite.judge, client: t?.judge, store: this.options.store, limit: this.limit, citations: t?.citations, signal },
      runId,
      key,
      question,
      turns,
    );
    this.totals.items++;
    this.totals.judgeCalls += outcome.judgeCalls;
    this.totals.cacheHits += outcome.cacheHits;
    this.totals.judgeTokens += outcome.judgeTokens;
    this.totals.problems += outcome.problems.length;
    return outcome;
  }

  /** Raw file fetches made by the citation checkers. */
  get citationFetches(): number {
    return [...this.perTarget.values()].reduce((n, t) => n + t.citations.fetches, 0);
  }

  async close(): Promise<void> {
    const judges = new Set([...this.perTarget.values()].map((t) => t.judge).filter((j) => j !== undefined));
    await Promise.all([...[...judges].map((j) => j.close()), ...[...this.perTarget.values()].map((t) => t.raw.close())]);
  }

  private transportOptions() {
    return { ...(this.options.retry && { retry: this.options.retry }), ...(this.options.timeoutMs !== undefined && { timeoutMs: this.options.timeoutMs }) };
  }
}
