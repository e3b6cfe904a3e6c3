import type { Conversation } from '../model/conversation.js';
import { ITEM_KEY_HEADER } from '../emulator-identity.js';
import { HttpStatusError, OutcomeUnknownError } from '../errors/errors.js';
import { noteServedByEmulator } from './emulator-note.js';
import { serverTimes } from './follow-turn.js';
import type { ItemContext, QuestionItem } from './item-context.js';
import { isoNow } from './iso-now.js';
import { seconds } from './send-recovery.js';
import { recordedOrCancelled } from './server-cancel.js';
import { traceHeaders, tracedAs } from './trace-requests.js';

/**
 * Sends turn `index`; returns the conversation's ref, or undefined when the send provably did not act (not
 * on the server once its window passed) and may be sent again. A send whose outcome is unknown (the
 * connection broke after it was sent, or a 5xx that may come from after the server acted) is looked for
 * first; during an abort, once, and never sent again.
 *
 * Each attempt is recorded as `sending` as it starts, with a send time its request timeout cannot precede
 * (`sending.at`): earlier attempts provably did not act, and a resume waits out the window of the last one.
 */
export async function send(...args: Parameters<typeof sendTurn>): Promise<string | undefined> {
  const on = await sendTurn(...args);
  const [ctx, item, , index] = args;
  if (on !== undefined) ctx.run.events.emit({ type: 'turn-sent', key: item.key, turn: index, ref: on });
  return on;
}

async function sendTurn(
  ctx: ItemContext,
  item: QuestionItem,
  ref: string | undefined,
  index: number,
  text: string,
  sending: { at: string },
  recordSending: () => void,
  until: AbortSignal,
): Promise<string | undefined> {
  const { recorder, runId, log } = ctx.run;
  const { client, recovery } = ctx.target;
  const onAttempt = () => {
    sending.at = isoNow();
    recordSending();
  };
  try {
    const traced = traceHeaders(ctx.target.trace, item.key);
    if (index === 0) {
      const emulated = ctx.target.emulated ? { [ITEM_KEY_HEADER]: item.key } : undefined;
      const headers = emulated || traced ? { headers: { ...emulated, ...traced } } : {};
      const conversation: Conversation = await recovery.create(item.key, text, () => client.create(text, { signal: until, persistent: true, onAttempt, idle: ctx.slot, ...headers }));
      await recordedOrCancelled(ctx, item.key, conversation.ref, undefined, () =>
        recorder.inOneCommit(() => {
          recorder.conversationCreated(runId, item.key, conversation.ref, isoNow());
          noteServedByEmulator(recorder, runId, item.target, ctx.target.emulatorNoted, conversation.servedByEmulator);
          recorder.recordTurn(runId, item.key, 0, { state: 'processing', text, polls: 0, ...serverTimes(conversation.questions[0], conversation), traces: tracedAs('create', conversation.trace) });
        }),
      );
      return conversation.ref;
    }
    const added = await client.addQuestion(ref as string, text, { signal: until, persistent: true, onAttempt, idle: ctx.slot, ...(traced && { headers: traced }) });
    await recordedOrCancelled(ctx, item.key, ref as string, added.id, () =>
      recorder.recordTurn(runId, item.key, index, { state: 'processing', text, questionId: added.id, polls: 0, traces: tracedAs('follow-up', added.trace) }),
    );
    return ref as string;
  } catch (error) {
    const unknown = error instanceof OutcomeUnknownError || (error instanceof HttpStatusError && error.status >= 500);
    if (!unknown) throw error;
    const givenUpAt = Date.now();
    const sent = { key: item.key, ref, index, text, sentAt: sending.at };
    log(`${item.key}: ${error.message}`);
    if (ctx.run.signals.abort.aborted) {
      // Looked for even when the run is aborting, so that what is found is cancelled.
      const looked = await recovery.findAborting(sent);
      if (looked?.ref === undefined) log(`${item.key}: no conversation was found for it; if one was created it may still be running: see dsbench conversations list`);
      if (looked?.ref === undefined) throw error;
      return looked.ref;
    }
    const looked = await recovery.findFailed(sent, givenUpAt, ctx.slot, until);
    if (looked.ref === undefined) log(`${item.key}: ${looked.said}; turn ${index} is not on the server ${seconds(recovery.sendWindowMs)} after its attempt failed: it did not act; asking it again`);
    return looked.ref;
  }
}
