import pLimit from 'p-limit';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { connectionFor, type Connection } from '../config/credentials.js';
import { loadSuite } from '../config/load-suite.js';
import { targetsFrom } from '../config/targets.js';
import type { RunningEmulator } from '../emulator/index.js';
import { RunGrading } from '../grade/run-grading.js';
import { DsbenchError, UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { formatGradingSummary, gradingSummary, openStore, SqliteGradeStore } from '../store/index.js';
import { commandUsage } from './command-usage.js';
import { transportSettings, type GlobalArgs, pathOption } from './global-options.js';
import type { CommandContext } from './io.js';

interface GradeArgs extends GlobalArgs {
  run: number;
  suite?: string | undefined;
  db: string;
  target: string[];
}

/** Items graded at once; the judge's own limit (judge.concurrency) bounds the calls. */
const ITEMS_AT_ONCE = 16;

export const gradeCommand = (cli: CommandContext): CommandModule<GlobalArgs, GradeArgs> => ({
  ...commandUsage.grade,
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('run', { type: 'number', demandOption: true, describe: 'Run id (see dsbench runs)' })
      .option('suite', { ...pathOption(cli), type: 'string', describe: "Suite whose rubrics, references and judge settings to grade by (default: the run's own file, as it is now)" })
      .option('db', { ...pathOption(cli), type: 'string', default: 'results/dsbench.db', describe: 'SQLite database the run is recorded in' })
      .option('target', { type: 'string', array: true, default: [] as string[], describe: 'NAME=URL where a target of the run is now reachable; token from DSBENCH_TOKEN_<NAME> or SRC_ACCESS_TOKEN' }) as unknown as Argv<GradeArgs>,
  handler: async (argv: ArgumentsCamelCase<GradeArgs>) => {
    const transport = transportSettings(argv);
    const store = openStore(argv.db);
    let emulator: RunningEmulator | undefined;
    let grading: RunGrading | undefined;
    try {
      const run = store.recorder.loadRun(argv.run);
      if (!run) throw new UsageError(`there is no run ${argv.run} in ${argv.db}; list runs with dsbench runs --db ${argv.db}`);
      const suite = await loadSuite(argv.suite ?? run.info.suitePath);
      const given = targetsFrom(argv.target, argv.endpoint, cli.env);
      const targets: Array<{ name: string; connection: Connection }> = [];
      for (const t of run.targets) {
        const match = given?.find((g) => g.name === t.name);
        if (match) targets.push({ name: t.name, connection: match.connection });
        else if (t.emulated) {
          // The run's emulator ended with its process; a new one has the same corpus, so citations check the same.
          emulator ??= await (await import('../emulator/index.js')).startEmulator({ port: 0 });
          targets.push({ name: t.name, connection: connectionFor(emulator.url, emulator.adminToken, {}) });
        } else targets.push({ name: t.name, connection: targetsFrom([`${t.name}=${t.url}`], undefined, cli.env)![0]!.connection });
      }
      // A judge that cannot grade is said before anything is replaced: the run's earlier grades stay.
      grading = RunGrading.create({ suite: suite.resolved, store: new SqliteGradeStore(store.db), targets, env: cli.env, retry: transport.retry, timeoutMs: transport.timeoutMs });
      if (!grading) throw new UsageError(`${suite.path} asks for no grading: add a rubric, reference, cites, citesRecall or minCitationValidity to an expect, or a judge block`);
      const judgeProblem = await grading.checkJudges();
      if (judgeProblem) throw new DsbenchError(`not grading run ${run.runId}: ${judgeProblem.message}`, judgeProblem.error.exitCode, { cause: judgeProblem.error });
      const questions = new Map(suite.resolved.questions.map((q) => [q.id, q]));
      const limit = pLimit(ITEMS_AT_ONCE);
      let unknown = 0;
      let failed = 0;
      await Promise.all(
        run.items.map((item) =>
          limit(async () => {
            const [target, kind, id] = item.key.split('/');
            if (kind !== 'question' || item.turns.length === 0) return;
            const question = questions.get(id ?? '');
            if (!question) {
              unknown++;
              return;
            }
            if (!grading!.needs(question)) return;
            const turns = item.turns.map((t) => ({ turn: t.turn, state: t.state, text: t.text ?? '', answer: t.answer, partial: t.partial, sources: t.sources }));
            const outcome = await grading!.grade(run.runId, item.key, target ?? '', question, turns);
            failed += outcome.failed;
            for (const problem of outcome.problems) cli.stderr.write(`dsbench: ${item.key}: grading ${problem}\n`);
          }),
        ),
      );
      const totals = grading.totals;
      const asked = totals.judgeCalls + totals.cacheHits;
      const summary = gradingSummary(store.db, run.runId);
      if (argv.json) {
        cli.stdout.write(`${JSON.stringify({ runId: run.runId, ...totals, citationFetches: grading.citationFetches, grades: summary }, null, 2)}\n`);
      } else {
        cli.stdout.write(
          `\nGraded run ${run.runId}: ${totals.items} conversations, ${totals.judgeCalls} judge calls, ${totals.cacheHits} from cache` +
            `${asked > 0 ? ` (hit rate ${Math.round((totals.cacheHits / asked) * 100)}%)` : ''}, ${totals.judgeTokens} judge tokens, ${grading.citationFetches} raw file fetches\n` +
            (unknown > 0 ? `${unknown} questions of the run are not in ${suite.path}; left as they were\n` : '') +
            formatGradingSummary(summary) +
            `${failed > 0 ? `\n${failed} grading checks failed.` : '\nAll grading checks passed.'}\n`,
        );
      }
      cli.exitCode = failed > 0 ? ExitCode.expectationsFailed : ExitCode.ok;
    } finally {
      await grading?.close();
      store.close();
      await emulator?.stop();
    }
  },
});
