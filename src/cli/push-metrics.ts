import type { Options } from 'yargs';
import { UsageError } from '../errors/errors.js';
import { type PushOutcome, pushUrlProblem } from '../report/push-metrics.js';
import type { CliOutput } from './io.js';

/** `--push-metrics URL`, the same for `run` and `report`. */
export const PUSH_METRICS_OPTION: Options = {
  type: 'string',
  describe: "Push the run's aggregate metrics to this Prometheus Pushgateway (e.g. http://localhost:9091); a failed push is reported, never fails the run",
};

/** A malformed URL is a usage error before anything runs; a gateway that cannot be reached is only reported, later. */
export function checkPushUrl(url: unknown): void {
  if (url === undefined) return;
  const problem = pushUrlProblem(String(url));
  if (problem) throw new UsageError(problem);
}

/** One line on stderr, pushed or not: the exit code stays the run's, whatever the gateway says. */
export function tellPush(outcome: PushOutcome | undefined, stderr: CliOutput): void {
  if (outcome) stderr.write(`dsbench: ${outcome.message}\n`);
}
