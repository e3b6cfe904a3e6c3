import { setFlagsFromString } from 'node:v8';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import type { RunningEmulator } from '../emulator/index.js';
import { openStore } from '../store/index.js';
import { findRun, storedVerdict } from '../store/queries.js';
import { verdictWord } from '../model/verdict.js';
import type { GlobalArgs } from './global-options.js';
import { commandUsage } from './command-usage.js';
import type { CommandContext } from './io.js';
import { textWidthFor } from './text-width.js';
import { fixBaselineRef, refuseConfirmElsewhere } from './run-baseline.js';
import { executeSuite, reporterNameOf, startTargets } from './run-execute.js';
import { finishRun } from './run-finish.js';
import { type RunArgs, runFlags } from './run-flags.js';
import { dryRun } from './run-plan.js';
import { checkShardFlags, resolveShardFlags } from './run-shard.js';
import { planRun, readRunInputs } from './run-start.js';

/**
 * SQLite's page cache for a run's connection. A run writes each item's rows once and reads back little, so
 * the default 16 MB only holds pages it will not touch again: filled once the database outgrows it, it made
 * a long run's peak 16 MB higher than a short one's, and a plan of 100,000 items filled it at once.
 */
const RUN_PAGE_CACHE_KIB = 2048;

export const runCommand = (cli: CommandContext): CommandModule<GlobalArgs, RunArgs> => ({
  ...commandUsage.run,
  builder: (y: Argv<GlobalArgs>) => runFlags(cli, y),
  handler: (given: ArgumentsCamelCase<RunArgs>) => runSuite(cli, given),
});

/** `dsbench run`: the flags and suite checked, the run planned, asked and recorded, then judged. */
async function runSuite(cli: CommandContext, given: RunArgs): Promise<void> {
  checkShardFlags(given);
  const argv = resolveShardFlags(given, cli.env, (text) => cli.stderr.write(`dsbench: ${text}\n`));
  if (argv.completedRun !== undefined) return endCompletedShard(cli, argv.db, argv.completedRun);
  tuneHeap();
  // Flags and the suite are checked before the database is opened: a usage error leaves no file behind.
  const inputs = await readRunInputs(cli, argv);
  if (argv.dryRun) return dryRun(argv, inputs, cli.stdout, textWidthFor(cli));
  const store = openStore(argv.db, { pageCacheKiB: RUN_PAGE_CACHE_KIB });
  let emulator: RunningEmulator | undefined;
  try {
    const plan = await planRun(cli, argv, store, inputs);
    if (!plan) return;
    const started = await startTargets(cli, argv, plan.named);
    emulator = started.emulator;
    const { targets } = started;
    const night = { suiteName: plan.suite.resolved.name, targets: targets.map((t) => t.name) };
    const baseline = argv.baseline !== undefined ? fixBaselineRef(store.db, argv.db, String(argv.baseline), night) : undefined;
    if (baseline && argv.confirm) refuseConfirmElsewhere(store.db, baseline, targets.map((t) => ({ name: t.name, url: t.connection.endpoint, emulated: t.emulated })));
    const reporterName = reporterNameOf(cli, argv);
    const result = await executeSuite(cli, argv, store, plan, targets, inputs, reporterName);
    // The embedded emulator stays up until the run's end is written: a second look (--confirm) asks it again.
    await finishRun(cli, argv, store, { result, targets, settings: plan.settings, baseline, transport: inputs.transport, reporterName });
  } finally {
    store.close();
    await emulator?.stop();
  }
}

/** A shard whose run completed before its pod restarted: its stored verdict is the exit code, nothing is asked. */
function endCompletedShard(cli: CommandContext, db: string, runId: number): void {
  const store = openStore(db, { readOnly: true });
  try {
    const run = findRun(store.db, runId)!;
    const exitCode = storedVerdict(store.db, runId);
    cli.stdout.write(`Run ${run.id} (shard ${run.split?.shardIndex}/${run.split?.shardCount}) completed already: ${verdictWord(exitCode)} (exit ${exitCode}); report it with: npx dsbench report ${run.id} --db ${db}\n`);
    cli.exitCode = exitCode;
  } finally {
    store.close();
  }
}

/**
 * A run keeps about 35 MB live whatever its length but allocates fast; V8's default lets the heap grow to
 * four times what is live between full collections (peak RSS 260 MB at 10,000 questions). Growing by half
 * keeps it flat under 200 MB for a few per cent more time in the collector. Under a run's allocation rate V8
 * doubles its young generation up to 32 MB (two 16 MB halves), a fifth of a 100,000-question run's peak RSS.
 * Its size can only be capped on node's command line (--max-semi-space-size), but its growth can be stopped
 * while running: it keeps the few MB start-up left.
 */
function tuneHeap(): void {
  setFlagsFromString('--heap-growing-percent=50');
  setFlagsFromString('--semi-space-growth-factor=1');
}
