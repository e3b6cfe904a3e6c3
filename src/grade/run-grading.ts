import pLimit from 'p-limit';
import { headersFor, type Connection, type Env } from '../config/credentials.js';
import type { ResolvedSuite } from '../config/resolve-suite.js';
import { DsbenchError } from '../errors/errors.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import { Transport } from '../http/transport.js';
import { CitationChecker } from './citations.js';
import { gradeItem, needsGrading, type GradedTurn, type GradeOutcome } from './grader.js';
import { JudgeClient, resolveJudgeEndpoint } from './judge-client.js';
import type { GradeStore } from '../model/grading.js';

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
  /**
   * Why the judge cannot be used (its check before the run failed and the run went on): turns with a
   * rubric or reference get an `error` grade saying so, no judge call; citations are still checked.
   */
  private judgeUnavailable: string | undefined;
  readonly totals: GradingTotals = { items: 0, judgeCalls: 0, cacheHits: 0, judgeTokens: 0, problems: 0 };

  private constructor(private readonly options: RunGradingOptions) {
    this.limit = pLimit(options.suite.judge.concurrency);
    const judges = judgeClients(options);
    for (const t of options.targets) {
      const judge = judges.get(t.name);
      const raw = new Transport({ endpoint: t.connection.endpoint, headers: headersFor(t.connection, 'stream'), connections: options.suite.judge.citationConcurrency + 1, ...transportOptions(options) });
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
      { judge: this.options.suite.judge, client: t?.judge, judgeUnavailable: this.judgeUnavailable, store: this.options.store, limit: this.limit, citations: t?.citations, signal },
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

  /**
   * Checks every judge this grading would call, once, before anything is asked (`GET /models` and the
   * model): undefined when each can grade or none is needed, else one line saying what failed, on which
   * endpoint, and what to do. Each judge grades with the model its check found.
   */
  async checkJudges(signal?: AbortSignal): Promise<{ message: string; error: DsbenchError } | undefined> {
    for (const judge of this.judges()) {
      try {
        await judge.check(signal);
      } catch (error) {
        if (!(error instanceof DsbenchError)) throw error;
        return { message: error.message, error };
      }
    }
    return undefined;
  }

  /** After a failed check, when the run goes on: the judged checks are recorded as not graded, never passed. */
  withoutJudge(reason: string): void {
    this.judgeUnavailable = reason;
  }

  /** Raw file fetches made by the citation checkers. */
  get citationFetches(): number {
    return [...this.perTarget.values()].reduce((n, t) => n + t.citations.fetches, 0);
  }

  async close(): Promise<void> {
    await Promise.all([...this.judges().map((j) => j.close()), ...[...this.perTarget.values()].map((t) => t.raw.close())]);
  }

  /** Each judge once: targets may share the external one. */
  private judges(): JudgeClient[] {
    return [...new Set([...this.perTarget.values()].flatMap((t) => (t.judge ? [t.judge] : [])))];
  }
}

function transportOptions(options: Pick<RunGradingOptions, 'retry' | 'timeoutMs'>) {
  return { ...(options.retry && { retry: options.retry }), ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }) };
}

/**
 * The judge of each target when the suite needs one (a rubric or reference anywhere): its own LLM API,
 * or the one external endpoint shared by every target. Throws UsageError for a judge that cannot be configured.
 */
function judgeClients(options: RunGradingOptions): Map<string, JudgeClient> {
  const judges = new Map<string, JudgeClient>();
  const needsJudge = options.suite.questions.some((q) => [q.expect, ...q.followups.map((f) => f.expect)].some((e) => e.rubric !== undefined || e.reference !== undefined));
  if (!needsJudge) return judges;
  let external: JudgeClient | undefined;
  for (const t of options.targets) {
    const endpoint = resolveJudgeEndpoint(options.suite.judge, t.connection, options.env);
    judges.set(t.name, endpoint.kind === 'external' ? (external ??= new JudgeClient(endpoint, transportOptions(options))) : new JudgeClient(endpoint, transportOptions(options)));
  }
  return judges;
}
