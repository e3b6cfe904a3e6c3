import pLimit from 'p-limit';
import { connectionFor, type Env } from '../config/credentials.js';
import { existsSync } from 'node:fs';
import { loadSuite } from '../config/load-suite.js';
import { JudgeSchema } from '../config/suite.js';
import { type ResolvedSuite } from '../config/resolve-suite.js';
import { targetsFrom } from '../config/targets.js';
import type { RunningEmulator } from '../emulator/index.js';
import { JudgeClient, resolveJudgeEndpoint } from '../grade/judge-client.js';
import { comparePairwise, formatPairwise, suiteGuide, type PairwiseResult } from '../grade/pairwise.js';
import { NothingToCompareError } from '../errors/errors.js';
import type { Side } from '../report/compare/compare-result.js';
import { gateAlpha, pValue } from '../report/compare/aggregate.js';
import type { RateChange } from '../stats/cluster-rate.js';
import { openStore, runTargets, SqliteGradeStore } from '../store/index.js';
import { plural } from '../report/tables.js';

export interface PairwiseGates {
  /**
   * Largest share of decided pairs the candidate may lose: the gate fails when the loss rate's interval
   * (over questions) lies above it, as the metric gates do, so a few lost pairs of noise do not fail it. Null: off.
   */
  maxLossRate: number | null;
  /**
   * Largest drop of the mean judge score (candidate minus baseline), and of the citation validity rate
   * (points as a fraction): each fails as the pass-rate gate does, when a one-sided sign-flip test over
   * questions says the drop is beyond noise and it is larger than the limit. Null: off.
   */
  maxScoreDrop: number | null;
  maxCitationValidityDrop: number | null;
}

/** The comparison's paired changes over questions (graded turns on both sides) that those two gates test. */
export interface GradedChanges {
  judgeScore: RateChange;
  citationValidity: RateChange;
}

export interface PairwiseOutcome {
  result: PairwiseResult;
  text: string;
  failedGates: string[];
}

/**
 * The suite whose rubrics, reference answers and judge settings guide the judge: `--suite`, else the
 * candidate run's own file when it is still there (as it is now). Without one the judge compares answers
 * to the question alone, and says so.
 */
export async function guidingSuite(file: string | undefined, candidate: Side): Promise<{ suite?: ResolvedSuite; note?: string }> {
  if (file !== undefined) return { suite: (await loadSuite(file)).resolved };
  const own = candidate.run.suitePath;
  const without = 'the judge compared without rubrics or reference answers; pass --suite FILE';
  if (!existsSync(own)) return { note: `no suite file at ${own} (the candidate run's): ${without}` };
  try {
    return { suite: (await loadSuite(own)).resolved };
  } catch (error) {
    return { note: `the candidate run's suite ${own} cannot be read now (${error instanceof Error ? error.message : String(error)}): ${without}` };
  }
}

/**
 * `compare --judge`: the judge compares each pair of answers in both orders, told the rubric and reference
 * answer of the turn when the suite has them. The judge is the one of DSBENCH_JUDGE_ENDPOINT, else the
 * candidate target's own LLM API (a new embedded emulator for an emulated run), with the model of
 * DSBENCH_JUDGE_MODEL, the suite's judge.model, or the first the endpoint lists.
 */
export async function judgePairs(
  baseline: Side,
  candidate: Side,
  gates: PairwiseGates,
  bootstrap: { resamples: number; confidence: number; seed: number },
  guiding: { suite?: ResolvedSuite; note?: string } = {},
  env: Env,
  graded: GradedChanges,
): Promise<PairwiseOutcome> {
  const sameDb = baseline.db === candidate.db;
  const cStore = openStore(candidate.db);
  const bStore = sameDb ? cStore : openStore(baseline.db);
  let emulator: RunningEmulator | undefined;
  let judge: JudgeClient | undefined;
  try {
    const targetName = candidate.target ?? candidate.targets[0];
    const target = runTargets(cStore.db, candidate.run.id).find((t) => t.name === targetName);
    let connection;
    if (!env.DSBENCH_JUDGE_ENDPOINT?.trim() && target) {
      if (target.emulated) {
        emulator = await (await import('../emulator/index.js')).startEmulator({ port: 0 });
        connection = connectionFor(emulator.url, emulator.adminToken, {});
      } else connection = targetsFrom([`${target.name}=${target.url}`], undefined, env)![0]!.connection;
    }
    const settings = guiding.suite?.judge ?? JudgeSchema.parse({});
    judge = new JudgeClient(resolveJudgeEndpoint(settings, connection, env));
    const result = await comparePairwise({
      baseline: { db: bStore.db, runId: baseline.run.id, target: baseline.target },
      candidate: { db: cStore.db, runId: candidate.run.id, target: candidate.target },
      judge,
      cache: new SqliteGradeStore(cStore.db),
      limit: pLimit(4),
      preamble: settings.preamble,
      guide: guiding.suite && suiteGuide(guiding.suite),
      bootstrap,
    });
    const decided = result.wins + result.losses + result.ties;
    if (decided === 0) {
      throw new NothingToCompareError(
        `the judge decided no pair (${result.pairs} paired answers, ${result.undecided} undecided${result.problems[0] ? `; first problem: ${result.problems[0]}` : ''})`,
      );
    }
    const failedGates: string[] = [];
    const loss = result.lossRate;
    if (gates.maxLossRate !== null && loss && loss.low > gates.maxLossRate) {
      const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
      failedGates.push(`pairwise loss rate ${pct(loss.value)} [${pct(loss.low)}, ${pct(loss.high)}] is above ${pct(gates.maxLossRate)} (its whole ${Math.round(bootstrap.confidence * 100)}% interval over ${plural(result.questions, 'question')})`);
    }
    const alpha = gateAlpha(bootstrap.confidence);
    const dropped = (c: RateChange, limit: number | null): c is RateChange & { change: number } =>
      limit !== null && c.change !== null && c.test.pLower < alpha && -c.change > limit + 1e-12;
    const score = graded.judgeScore;
    if (dropped(score, gates.maxScoreDrop)) {
      failedGates.push(`mean judge score dropped by ${(-score.change).toFixed(3)} (more than ${gates.maxScoreDrop}; p = ${pValue(score.test.pLower)} over ${plural(score.clusters, 'question')})`);
    }
    const validity = graded.citationValidity;
    if (dropped(validity, gates.maxCitationValidityDrop)) {
      failedGates.push(`citation validity dropped by ${(-validity.change * 100).toFixed(1)} points (more than ${(gates.maxCitationValidityDrop! * 100).toFixed(1)}; p = ${pValue(validity.test.pLower)} over ${plural(validity.clusters, 'question')})`);
    }
    const problems = result.problems.slice(0, 5).map((p) => `  judge problem: ${p}\n`).join('');
    const note = guiding.note ? `  note: ${guiding.note}\n` : '';
    const text = formatPairwise(result, bootstrap.confidence) + note + problems + failedGates.map((g) => `  GATE FAILED: ${g}\n`).join('');
    return { result, text, failedGates };
  } finally {
    await judge?.close();
    if (!sameDb) bStore.close();
    cStore.close();
    await emulator?.stop();
  }
}
