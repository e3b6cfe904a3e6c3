import type Database from 'better-sqlite3';
import { redact } from '../redact.js';
import type { RunRecord } from '../store/queries.js';
import { collectRunMetrics, type ScopeMetrics } from './run-metrics.js';
import { mean, percentiles } from '../stats/percentiles.js';
import { evaluateThresholds, runThresholds, type ThresholdResult } from './thresholds.js';

/*
 * A run's aggregate metrics for Prometheus, pushed to a Pushgateway (the Prometheus way for batch jobs):
 * text exposition format, PUT to <url>/metrics/job/dsbench/suite/<suite>/label/<label>, so each push
 * replaces the previous one of the same suite and label. Every series is labelled by target (`all` for
 * the whole run) and run id; dashboards/dsbench.json plots them. docs/dashboards.md lists the metrics.
 */

export const PUSH_JOB = 'dsbench';
/** The whole run's series; a target has its own name. */
export const WHOLE_RUN = 'all';
const QUANTILES = [0.5, 0.9, 0.95, 0.99] as const;
const PUSH_TIMEOUT_MS = 10_000;

type Labels = Record<string, string>;
type Sample = [Labels, number | null];

interface Gauge {
  name: string;
  help: string;
  samples(scope: ScopeMetrics, thresholds: readonly ThresholdResult[]): Sample[];
}

const rate = (numerator: number, denominator: number): number | null => (denominator === 0 ? null : numerator / denominator);
const sumOrNull = (values: readonly number[]): number | null => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0));

function quantiles(values: readonly number[], scale: number): Sample[] {
  const found = percentiles(values, QUANTILES.map((q) => q * 100));
  return QUANTILES.map((q, i) => [{ quantile: String(q) }, found[i] === null ? null : found[i]! / scale]);
}

const one = (value: number | null): Sample[] => [[{}, value]];

/**
 * Every metric pushed, in one list: a new one (pass^k, say) is one more entry. A sample whose value is null
 * (not measured: credits on the versioned API) is left out rather than sent as 0.
 */
const GAUGES: readonly Gauge[] = [
  { name: 'dsbench_latency_seconds', help: 'Wall time of a question turn, by quantile (nearest rank).', samples: (s) => quantiles(s.turnWallMs, 1000) },
  { name: 'dsbench_server_latency_seconds', help: "The server's own time of a question turn, by quantile.", samples: (s) => quantiles(s.turnServerMs, 1000) },
  { name: 'dsbench_search_latency_seconds', help: 'Wall time of a streaming search, by quantile.', samples: (s) => quantiles(s.searchWallMs, 1000) },
  { name: 'dsbench_search_server_latency_seconds', help: "The server's own time of a streaming search (its durationMs), by quantile.", samples: (s) => quantiles(s.searchServerMs, 1000) },
  { name: 'dsbench_items', help: 'Items planned (questions and searches, times repeats).', samples: (s) => one(s.items.items) },
  { name: 'dsbench_items_finished', help: 'Items that ran to their end.', samples: (s) => one(s.items.done) },
  { name: 'dsbench_item_errors', help: 'Finished items that ended in a failure the suite did not expect.', samples: (s) => one(s.items.itemErrors) },
  { name: 'dsbench_item_expected_errors', help: 'Finished items that ended in a failure the suite expected.', samples: (s) => one(s.items.itemExpectedErrors) },
  { name: 'dsbench_error_rate', help: 'Unexpected failures among finished items (0 to 1).', samples: (s) => one(rate(s.items.itemErrors, s.items.done)) },
  { name: 'dsbench_pass_rate', help: 'Items that passed every check among items with checks (0 to 1).', samples: (s) => one(rate(s.items.expectPassed, s.items.expectItems)) },
  { name: 'dsbench_turns', help: 'Question turns asked.', samples: (s) => one(s.turns) },
  { name: 'dsbench_turns_truncated', help: 'Question turns stopped by the output limit after some answer text (the instance\'s response_truncated).', samples: (s) => one(s.truncated) },
  {
    name: 'dsbench_turns_truncated_no_answer',
    help: "Question turns stopped by the output limit before any answer text (the instance's response_truncated_no_answer).",
    samples: (s) => one(s.truncatedNoAnswer),
  },
  { name: 'dsbench_billed_failures', help: 'Question turns that failed yet reported credits (absent where the API reports none).', samples: (s) => one(s.conversationCredits.length === 0 ? null : s.billedFailures.turns) },
  { name: 'dsbench_billed_failure_credits', help: 'Credits reported by failed question turns (absent where the API reports none).', samples: (s) => one(s.conversationCredits.length === 0 ? null : s.billedFailures.credits) },
  { name: 'dsbench_credits', help: 'Credits of all turns (absent where the API reports none).', samples: (s) => one(sumOrNull(s.conversationCredits)) },
  { name: 'dsbench_tokens', help: 'Tokens of all turns (absent where the API reports none).', samples: (s) => one(sumOrNull(s.conversationTokens)) },
  { name: 'dsbench_searches', help: 'Streaming searches run.', samples: (s) => one(s.searches) },
  { name: 'dsbench_search_matches', help: 'Matches found by all searches.', samples: (s) => one(s.searchMatches) },
  { name: 'dsbench_judge_score_mean', help: "Mean judge score of the graded turns (0 to 1).", samples: (s) => one(mean(s.judgeScores)) },
  {
    name: 'dsbench_pass_hat_k',
    help: 'pass^k: the chance that k repeats of a question all pass, mean over questions (0 to 1); label k.',
    samples: (s) => (s.passHatK === null ? [] : [[{ k: String(s.passHatK.k) }, s.passHatK.value]]),
  },
  { name: 'dsbench_citation_validity', help: 'Checked citations that resolve (0 to 1).', samples: (s) => one(rate(s.citations.valid, s.citations.valid + s.citations.invalid)) },
  {
    name: 'dsbench_threshold_passed',
    help: "1 when the suite's threshold held on this scope, 0 when it failed or its metric was not measured.",
    samples: (s, thresholds) => thresholds.filter((t) => t.target === s.target).map((t): Sample => [{ metric: t.metric, threshold: t.expression.trim() }, t.passed ? 1 : 0]),
  },
];

/** The names of every metric pushed (dashboards/dsbench.json plots each). */
export const PUSHED_METRICS: readonly string[] = GAUGES.map((g) => g.name);

const escapeLabel = (value: string): string => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/** The text exposition format (version 0.0.4) of a run's metrics, per scope. */
export function exposition(run: Pick<RunRecord, 'id'>, scopes: readonly ScopeMetrics[], thresholds: readonly ThresholdResult[]): string {
  const lines: string[] = [];
  for (const gauge of GAUGES) {
    const samples = scopes.flatMap((scope) =>
      gauge.samples(scope, thresholds).flatMap(([labels, value]) => (value === null ? [] : [{ labels: { target: scope.target ?? WHOLE_RUN, run: String(run.id), ...labels }, value }])),
    );
    if (samples.length === 0) continue;
    lines.push(`# HELP ${gauge.name} ${gauge.help}`, `# TYPE ${gauge.name} gauge`);
    for (const { labels, value } of samples) {
      const text = Object.entries(labels)
        .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
        .join(',');
      lines.push(`${gauge.name}{${text}} ${value}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** A grouping key value in the URL: as is when plain, else base64url (the Pushgateway's `@base64` form; empty too). */
function groupingValue(name: string, value: string): string {
  if (/^[A-Za-z0-9._-]+$/.test(value)) return `${name}/${value}`;
  return `${name}@base64/${Buffer.from(value).toString('base64url') || '='}`;
}

/** The Pushgateway URL of a run's group; user and password of the given URL are sent as basic auth instead. */
export function pushTarget(base: string, run: Pick<RunRecord, 'suiteName' | 'label'>): { url: URL; headers: Record<string, string>; shown: string } {
  const url = new URL(base);
  const headers: Record<string, string> = { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' };
  if (url.username !== '' || url.password !== '') {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  const root = url.pathname.replace(/\/+$/, '');
  url.pathname = `${root}/metrics/job/${PUSH_JOB}/${groupingValue('suite', run.suiteName)}/${groupingValue('label', run.label ?? '')}`;
  return { url, headers, shown: url.toString() };
}

/** Why `--push-metrics` cannot be used, checked before a run starts; undefined when it can. */
export function pushUrlProblem(base: string): string | undefined {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return `--push-metrics ${JSON.stringify(redact(base))} is not a URL; give the Pushgateway's, e.g. http://localhost:9091`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `--push-metrics needs an http or https URL, got ${url.protocol}`;
  return undefined;
}

export interface PushOutcome {
  ok: boolean;
  /** One line for the user: where the metrics went, or why they did not and what to do. */
  message: string;
}

/**
 * Pushes a run's metrics (thresholds judged as in its report). Never throws: a failed push is a line to
 * show, and the run stays recorded whatever the gateway does.
 */
export async function pushRunMetrics(db: Database.Database, run: RunRecord, base: string): Promise<PushOutcome> {
  let target: ReturnType<typeof pushTarget>;
  try {
    target = pushTarget(base, run);
  } catch {
    return { ok: false, message: pushUrlProblem(base) ?? `--push-metrics: cannot use ${JSON.stringify(redact(base))}` };
  }
  const scopes = collectRunMetrics(db, run.id);
  const body = exposition(run, scopes, evaluateThresholds(scopes, runThresholds(run)));
  const again = `the run is recorded; push it again with dsbench report ${run.id} --push-metrics URL`;
  try {
    // A redirect is not followed: it would carry the metrics (and a 307/308 the credentials) elsewhere.
    const response = await fetch(target.url, { method: 'PUT', headers: target.headers, body, redirect: 'manual', signal: AbortSignal.timeout(PUSH_TIMEOUT_MS) });
    if (response.status >= 300 && response.status < 400) {
      const location = response.headers.get('location') ?? '(no location)';
      return { ok: false, message: `could not push metrics to ${target.shown}: HTTP ${response.status} redirects to ${JSON.stringify(redact(location))}, which is not followed; give --push-metrics the gateway's own URL; ${again}` };
    }
    if (response.ok) return { ok: true, message: `pushed the metrics of run ${run.id} to ${target.shown}` };
    const detail = (await response.text().catch(() => '')).replace(/\s+/g, ' ').trim().slice(0, 200);
    return { ok: false, message: `could not push metrics to ${target.shown}: HTTP ${response.status}${detail ? ` (${redact(detail)})` : ''}; check the URL and the gateway's log; ${again}` };
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    return { ok: false, message: `could not push metrics to ${target.shown}: ${redact(cause)}; is the Pushgateway running there? ${again}` };
  }
}
