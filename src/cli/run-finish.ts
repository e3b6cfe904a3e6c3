import { compareJson } from '../report/compare/compare-json.js';
import { pushRunMetrics } from '../report/push-metrics.js';
import { formatQuality, runQuality } from '../report/quality.js';
import { formatThresholds, runThresholdResults, thresholdsExitCode } from '../report/thresholds.js';
import { mostSevere } from '../model/verdict.js';
import type { ReporterName } from '../runner/reporters/index.js';
import type { RunResult, RunTarget } from '../runner/run.js';
import type { RunSettings } from '../runner/run-settings.js';
import { formatGradingSummary, gradingSummary } from '../store/index.js';
import { failingItems } from '../store/failing-items.js';
import { findRun, recordComparedVerdict, runTargets } from '../store/queries.js';
import type { Store } from '../store/store.js';
import type { transportSettings } from './global-options.js';
import type { CommandContext } from './io.js';
import { tellPush } from './push-metrics.js';
import { baselineExitCode, type BaselineRef, compareWithBaseline, comparisonText, runEndedAsNight } from './run-baseline.js';
import { type Confirmed, needsSecondLook, secondLook } from './run-confirm.js';
import type { RunArgs } from './run-flags.js';
import { groupShareText } from './run-group.js';
import { interruptionNotes } from './run-notes.js';
import { notifyAfterRun } from './run-notify.js';
import { fetchRunTraces } from './run-trace.js';
import { renderText } from '../report/document.js';
import { textWidthFor } from './text-width.js';
import { wrapText } from '../report/text-fit.js';
import { formatFailingItems, formatRunSummary, MAX_FAILING_LISTED } from './run-summary.js';

/** The slowest and the failed items `run --trace` lists with their links at the end of its summary. */
const RUN_TRACES_LISTED = 5;

/** What the run left for its end: its result, where it ran, and what it is judged against. */
export interface EndedRun {
  result: RunResult;
  targets: RunTarget[];
  settings: RunSettings;
  baseline: BaselineRef | undefined;
  transport: ReturnType<typeof transportSettings>;
  reporterName: ReporterName;
}

/**
 * The run's end: its summary (text or JSON), the comparison with --baseline and, with --confirm, its second
 * look, JUnit and the Pushgateway; the exit code is the second look's, else the comparison's, else the run's.
 */
export async function finishRun(cli: CommandContext, argv: RunArgs, store: Store, ended: EndedRun): Promise<void> {
  const { result, baseline, settings } = ended;
  // The embedded emulator, or a standalone one that said so in its replies.
  const emulated = runTargets(store.db, result.runId).some((t) => t.servedByEmulator);
  const embedded = ended.targets.some((t) => t.emulated);
  const grades = gradingSummary(store.db, result.runId);
  const quality = runQuality(store.db, result.runId);
  const run = findRun(store.db, result.runId)!;
  const thresholds = runThresholdResults(store.db, run);
  const runCode = mostSevere([result.exitCode, thresholdsExitCode(thresholds)]);
  // With --confirm the second look is taken below; `dsbench confirm` cannot re-ask an embedded emulator once the run has ended.
  const hint = argv.confirm ? 'none' : embedded ? 'rerun' : 'confirm';
  const comparison = baseline && runEndedAsNight(result.exitCode) ? await compareWithBaseline(argv.db, run.id, baseline, argv, hint, undefined, textWidthFor(cli)) : undefined;
  const look = argv.confirm && baseline && needsSecondLook(comparison) ? await secondLook(cli, argv, { id: run.id, targets: ended.targets, baseline }, ended.transport, ended.reporterName) : undefined;
  const confirmed: Confirmed | undefined = look && 'result' in look ? look : undefined;
  const refused = look && 'refused' in look ? `\nNo second look (--confirm): ${look.refused}. The comparison's exit code stands.\n` : '';
  const judged = confirmed ? { ...comparison!, exitCode: confirmed.exitCode } : comparison;
  const exitCode = judged ? baselineExitCode(judged, thresholdsExitCode(thresholds)) : runCode;
  // The night's verdict, for the pooled baselines and blessings of later nights.
  if (judged) recordComparedVerdict(store.db, run.id, exitCode);
  const split = settings.shard && run.split;
  const shardNote = split
    ? `Shard ${split.shardIndex}/${split.shardCount} of run group ${split.groupLabel || '(no --group)'} (${split.groupId}); once every shard is done: dsbench merge SHARD.db... --into DB\n`
    : '';
  const groupNote = settings.group ? groupShareText(settings.group, result) : '';
  const traceNote = argv.trace !== undefined && !argv.json ? await traceOverview(store, argv.db, run.id, textWidthFor(cli)) : '';
  cli.stdout.write(
    argv.json
      ? `${JSON.stringify({ ...result, exitCode, ...(grades.length > 0 && { grades }), ...(thresholds.length > 0 && { thresholds }), ...(split && { split }), ...(settings.group && { group: settings.group }), quality, db: store.path, emulated, ...(comparison && { comparison: compareJson(comparison.result) }), ...(confirmed && { confirmation: { verdict: confirmed.result.verdict, verdictLine: confirmed.result.line, exitCode: confirmed.exitCode, confirmRunId: confirmed.result.confirmRunId, reasked: confirmed.result.reasked } }), ...(look && 'refused' in look && { confirmation: { refused: look.refused } }), ...(await notifyAfterRun(store.db, run, argv, 'json')) }, null, 2)}\n`
      : formatRunSummary({ ...result, exitCode: runCode }, store.path, emulated, textWidthFor(cli)) +
          formatFailingItems(failingItems(store.db, run.id, MAX_FAILING_LISTED), run.id, store.path, textWidthFor(cli)) +
          wrapText(formatQuality(quality), textWidthFor(cli), 2) +
          formatGradingSummary(grades) +
          formatThresholds(thresholds) +
          shardNote +
          groupNote +
          interruptionNotes(result, argv.db, embedded, result.stoppedBy !== undefined && !settings.group ? ` --max-credits ${2 * (settings.maxCredits ?? 0)}` : '') +
          (baseline ? comparisonText(baseline, comparison, runCode, confirmed !== undefined) : '') +
          (confirmed ? `${confirmed.text}\nThe second look decides the exit code: ${exitCode}.\n` : refused) +
          traceNote +
          (await notifyAfterRun(store.db, run, argv, 'text')),
  );
  if (argv.traceFetch) await fetchRunTraces(store.db, argv.db, run.id, ended.targets, argv, cli.stderr);
  if (argv.junit !== undefined) (await import('../report/junit.js')).writeRunJunit(store.db, run, argv.junit);
  if (argv.pushMetrics !== undefined) tellPush(await pushRunMetrics(store.db, run, argv.pushMetrics), cli.stderr);
  cli.exitCode = exitCode;
}

/** `run --trace`'s overview of the slowest and failed items; the report code it needs is loaded only then. */
async function traceOverview(store: Store, db: string, runId: number, width: number): Promise<string> {
  const [{ traceData }, { traceOverviewBlocks }] = await Promise.all([import('../report/report.js'), import('../report/trace-document.js')]);
  return renderText(traceOverviewBlocks(traceData(store.db, db, runId, RUN_TRACES_LISTED).traces), width);
}
