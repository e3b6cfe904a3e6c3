import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { createClient, type DeepSearchClient } from '../deepsearch/index.js';
import { questionAt, withoutSecrets, type Conversation, type Question, type TraceRef } from '../model/conversation.js';
import { SHOULD_TRACE_HEADER } from '../http/trace-headers.js';
import { fixedSchedule, waitForQuestion } from '../deepsearch/wait.js';
import { AbortedError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { parseDuration } from '../config/duration.js';
import { AskProgress } from './ask-progress.js';
import { DEFAULT_API, transportSettings, type GlobalArgs } from './global-options.js';
import { conversationLink, formatQuestion } from './format.js';
import { openTarget } from './target.js';
import { commandUsage } from './command-usage.js';
import { onStopSignal } from './signals.js';
import type { CliOutput, CommandContext } from './io.js';
import { terminalJson, terminalSafe } from '../terminal-text.js';
import { redact } from '../redact.js';

interface AskArgs extends GlobalArgs {
  question: string;
  followup: string[];
  timeout: string;
  pollInterval?: string | undefined;
  trace: boolean;
}

interface Turn {
  question: Question;
  timedOut: boolean;
  polls: number;
  wallMs: number;
}

export const askCommand = (cli: CommandContext): CommandModule<GlobalArgs, AskArgs> => ({
  ...commandUsage.ask,
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('question', { type: 'string', demandOption: true, describe: 'The question' })
      .option('followup', { type: 'string', array: true, default: [] as string[], describe: 'A follow-up, asked after the previous answer ends (repeatable)' })
      .option('timeout', { type: 'string', default: '5m', describe: 'How long to wait for each answer before cancelling it (90, 90s, 5m)' })
      .option('poll-interval', { type: 'string', describe: 'Time between polls (default 3s; 200ms on the embedded emulator)' })
      .option('trace', { type: 'boolean', default: false, describe: "Ask the instance to trace the question's create and print the trace link" })
      .check((argv) => {
        parseDuration(String(argv.timeout), '--timeout');
        if (argv.pollInterval != null) parseDuration(String(argv.pollInterval), '--poll-interval');
        return true;
      }) as unknown as Argv<AskArgs>,
  handler: async (argv: ArgumentsCamelCase<AskArgs>) => {
    const target = await openTarget(argv.endpoint, cli);
    const client = createClient(target.connection, argv.api ?? DEFAULT_API, transportSettings(argv));
    try {
      const intervalMs = argv.pollInterval != null ? parseDuration(String(argv.pollInterval), '--poll-interval') : target.emulated ? 200 : 3000;
      const texts = [argv.question, ...argv.followup];
      // --json for a script: its stderr stays empty unless a person watches a terminal.
      const progress = new AskProgress(argv.json && !cli.stderr.isTTY ? { write: () => true } : cli.stderr, texts.length);
      const stop = stopOnSignal(cli.stderr);
      let asked: Awaited<ReturnType<typeof ask>>;
      try {
        asked = await ask(client, texts, intervalMs, parseDuration(String(argv.timeout), '--timeout'), progress, stop.signal, cli.stderr, argv.trace);
      } finally {
        stop.release();
      }
      if (asked.stopped) {
        cli.exitCode = ExitCode.aborted;
        return;
      }
      const { conversation, turns, trace } = asked;
      const last = turns[turns.length - 1];
      if (argv.json) cli.stdout.write(`${terminalJson(JSON.stringify({ ...jsonOutput(conversation, turns, target.emulated), ...(argv.trace && { trace: trace ?? null }) }, null, 2))}\n`);
      else cli.stdout.write(terminalSafe(textOutput(conversation, turns) + (argv.trace ? traceLine(trace) : '')));
      if (!last || last.timedOut || last.question.state !== 'completed') cli.exitCode = ExitCode.expectationsFailed;
    } finally {
      await client.close();
      await target.close();
    }
  },
});

/**
 * A first stop signal aborts `signal`: the question being answered is cancelled on the server, so an
 * interrupted `ask` does not go on spending quota. A second one exits at once.
 */
function stopOnSignal(stderr: CliOutput): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const release = onStopSignal((name) => {
    if (controller.signal.aborted) {
      stderr.write(`dsbench: ${name} again: exiting without cancelling the question\n`);
      process.exit(ExitCode.aborted);
    }
    stderr.write(`dsbench: ${name}: cancelling the question on the server, then exiting (${name} again to exit at once)\n`);
    controller.abort();
  });
  return { signal: controller.signal, release };
}

/**
 * Asks the first question, then each follow-up once the previous answer has ended; stops at the first that
 * did not complete, or when `stop` aborts: then the question in flight is cancelled (a send already under
 * way is let finish, so that there is a question to cancel).
 */
async function ask(client: DeepSearchClient, texts: string[], intervalMs: number, timeoutMs: number, progress: AskProgress, stop: AbortSignal, stderr: CliOutput, traced: boolean) {
  const [first, ...followups] = texts as [string, ...string[]];
  // The create's trace holds the conversation's spans (the agent's steps and tool calls); polls are not traced.
  let conversation = await client.create(first, traced ? { headers: { [SHOULD_TRACE_HEADER]: 'true' } } : undefined);
  const trace = conversation.trace;
  progress.sent(0);
  const turns: Turn[] = [];
  for (let index = 0; ; index++) {
    let polls = 0;
    let seen: Question | undefined;
    let waited;
    try {
      if (stop.aborted) throw new AbortedError('stopped by a signal');
      waited = await waitForQuestion(client, conversation.ref, index, {
        schedule: fixedSchedule(intervalMs),
        timeoutMs,
        signal: stop,
        onPoll: (c) => {
          seen = questionAt(c, index) ?? seen;
          progress.polled(index, c, ++polls);
        },
      });
    } catch (error) {
      if (!(error instanceof AbortedError) || !stop.aborted) throw error;
      await cancelOnStop(client, conversation.ref, index, seen?.id, stderr);
      return { stopped: true as const };
    }
    conversation = waited.conversation;
    if (waited.timedOut) await client.cancel(conversation.ref, waited.question?.id);
    const question = waited.question ?? { index, text: texts[index] ?? '', state: 'processing' as const, rawState: 'unlisted' };
    progress.ended(index, waited.timedOut ? 'timed out (cancelled)' : question.state);
    turns.push({ question, timedOut: waited.timedOut, polls: waited.polls, wallMs: Math.round(waited.wallMs) });
    const next = followups[index];
    if (next === undefined || waited.timedOut || question.state !== 'completed') break;
    await client.addQuestion(conversation.ref, next);
    progress.sent(index + 1);
  }
  return { stopped: false as const, conversation, turns, trace };
}

async function cancelOnStop(client: DeepSearchClient, ref: string, index: number, questionId: string | undefined, stderr: CliOutput): Promise<void> {
  const what = `question ${index + 1} of conversation ${ref}`;
  try {
    await client.cancel(ref, questionId, { signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) });
    stderr.write(`dsbench: asked the server to cancel ${what}\n`);
  } catch (error) {
    stderr.write(`dsbench: could not cancel ${what} (${terminalSafe(redact(error instanceof Error ? error.message : String(error)))}); it may still be answered and counted against the quota\n`);
  }
}

const CANCEL_TIMEOUT_MS = 10_000;

function jsonOutput(conversation: Conversation, turns: Turn[], emulated: boolean) {
  const turnJson = turns.map((t) => ({
    index: t.question.index,
    question: t.question.text,
    state: t.timedOut ? 'timeout' : t.question.state,
    errorCode: t.question.error?.code ?? null,
    rawErrorCode: t.question.error?.rawCode ?? null,
    errorMessage: t.question.error?.message ?? null,
    title: t.question.title ?? null,
    answer: t.question.answer ?? null,
    partial: t.question.partial ?? false,
    sources: t.question.sources ?? null,
    suggestedFollowups: t.question.suggestedFollowups ?? null,
    stats: t.question.stats ?? null,
    polls: t.polls,
    wallMs: t.wallMs,
  }));
  const last = turnJson[turnJson.length - 1];
  const safe = withoutSecrets(conversation);
  return {
    api: safe.api,
    [safe.api === 'legacy' ? 'id' : 'name']: safe.ref,
    emulated,
    ...last,
    quotaUsage: safe.quotaUsage ?? null,
    turns: turnJson,
  };
}

/** The trace link (a login opens it; it holds no token), or why there is none. */
function traceLine(trace: TraceRef | undefined): string {
  if (!trace) return 'Trace: none (the instance sent no X-Trace header: tracing may be off)\n';
  if (trace.url) return `Trace: ${trace.url}\n`;
  return `Trace: ${trace.id}${trace.note ? ` (${trace.note})` : ''}\n`;
}

function textOutput(conversation: Conversation, turns: Turn[]): string {
  const header = `Conversation ${conversation.ref} (${conversation.api} API)\n${conversationLink(conversation)}`;
  const body = turns.map((t) => formatQuestion(t.question, { timedOut: t.timedOut, polls: t.polls, wallMs: t.wallMs })).join('\n');
  const quota = conversation.quotaUsage
    ? `\nQuota: ${conversation.quotaUsage.totalQuota} used of ${conversation.quotaUsage.quotaLimit < 0 ? 'unlimited' : conversation.quotaUsage.quotaLimit}` +
      (conversation.quotaUsage.resetTime ? `, resets ${conversation.quotaUsage.resetTime}` : '') +
      '\n'
    : '';
  return header + body + quota;
}
