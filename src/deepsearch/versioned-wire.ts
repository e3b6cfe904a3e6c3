import { z } from 'zod';
import { OptServerText, ServerText } from '../http/server-text.js';
import { markPartial, outputLimitError, type Conversation, type ConversationSummary, type Question, type QuestionError, type QuestionState } from '../model/conversation.js';
import { normalizeErrorCode } from './wire.js';
import { redact } from '../redact.js';

// Wire schemas of the versioned Connect-RPC API, read after snake_case keys were camelized.
// Loose objects: unknown fields and unknown state keys pass through.
const OptString = z.string().nullish().transform((v) => v ?? undefined);

const TextPart = z.looseObject({ text: OptServerText });

const VersionedInput = z.looseObject({ question: TextPart.nullish() });

/** An answer is a list of parts (`markdown.text`); a plain string is read as well. */
const VersionedAnswer = z.union([
  ServerText,
  z.array(z.looseObject({ markdown: TextPart.nullish(), text: OptServerText })),
]);

const VersionedError = z.looseObject({ code: OptServerText, message: OptServerText, retryTime: OptString });

const VersionedState = z.looseObject({
  processing: z.unknown().optional(),
  completed: z.unknown().optional(),
  canceled: z.unknown().optional(),
  cancelled: z.unknown().optional(),
  error: VersionedError.optional(),
});

export const VersionedQuestionWire = z.looseObject({
  input: z.array(VersionedInput).nullish(),
  answer: VersionedAnswer.nullish(),
  createTime: OptString,
  updateTime: OptString,
  title: OptServerText,
});
type VersionedQuestionWire = z.output<typeof VersionedQuestionWire>;

export const VersionedConversationWire = z.looseObject({
  name: z.string().min(1),
  state: VersionedState.nullish(),
  createTime: OptString,
  updateTime: OptString,
  title: OptServerText,
  url: OptString,
  questions: z.array(VersionedQuestionWire).nullish(),
});
type VersionedConversationWire = z.output<typeof VersionedConversationWire>;

export const VersionedListWire = z.looseObject({
  conversationSummaries: z
    .array(
      z.looseObject({
        name: z.string().min(1),
        title: OptServerText,
        createTime: OptString,
        updateTime: OptString,
      }),
    )
    .nullish(),
  nextPageToken: OptString,
});

function questionText(wire: VersionedQuestionWire): string {
  return (wire.input ?? []).map((input) => input.question?.text ?? '').filter(Boolean).join('\n');
}

function answerText(wire: VersionedQuestionWire): string | undefined {
  if (wire.answer === undefined || wire.answer === null) return undefined;
  if (typeof wire.answer === 'string') return wire.answer;
  const parts = wire.answer.map((part) => part.markdown?.text ?? part.text ?? '').filter((text) => text !== '');
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

/** The state oneof; a missing state means still processing, an unknown key is kept raw and not terminal. */
function stateOf(wire: VersionedConversationWire): { state: QuestionState; rawState: string; error?: QuestionError } {
  const state = wire.state;
  if (!state) return { state: 'processing', rawState: 'processing' };
  if (state.error) {
    const rawCode = state.error.code ?? 'ERROR_UNSPECIFIED';
    const error: QuestionError = { code: normalizeErrorCode(rawCode), rawCode, message: state.error.message ?? '' };
    if (state.error.retryTime) error.retryTime = state.error.retryTime;
    return { state: error.code === 'CANCELED' ? 'canceled' : 'error', rawState: 'error', error };
  }
  if (state.canceled !== undefined || state.cancelled !== undefined) {
    return { state: 'canceled', rawState: 'canceled', error: { code: 'CANCELED', rawCode: 'canceled', message: 'canceled' } };
  }
  if (state.completed !== undefined) return { state: 'completed', rawState: 'completed' };
  if (state.processing !== undefined) return { state: 'processing', rawState: 'processing' };
  return { state: 'processing', rawState: redact(Object.keys(state)[0] ?? 'processing') };
}

export function versionedQuestion(wire: VersionedQuestionWire, index: number, state: ReturnType<typeof stateOf>): Question {
  const question: Question = { index, text: questionText(wire), state: state.state, rawState: state.rawState };
  if (state.error) question.error = state.error;
  const answer = answerText(wire);
  if (answer !== undefined) question.answer = answer;
  if (wire.title) question.title = wire.title;
  if (wire.createTime) question.createdAt = wire.createTime;
  if (wire.updateTime) question.updatedAt = wire.updateTime;
  return markPartial(question);
}

/** A question added to a conversation starts processing. */
export function addedQuestion(wire: VersionedQuestionWire): Question {
  return versionedQuestion(wire, -1, { state: 'processing', rawState: 'processing' });
}

export function versionedConversation(wire: VersionedConversationWire): Conversation {
  const state = stateOf(wire);
  const wires = wire.questions ?? [];
  const done = { state: 'completed', rawState: 'completed' } as const;
  // The state belongs to the conversation, so to its latest question; earlier ones had ended.
  const questions = wires.map((q, i) => versionedQuestion(q, i, i === wires.length - 1 ? state : done));
  const conversation: Conversation = { api: 'versioned', ref: wire.name, state: state.state, questions };
  // The latest question's error is the state's, named by its answer (an output limit with or without text).
  if (state.error) conversation.error = questions.at(-1)?.error ?? outputLimitError(state.error, undefined);
  if (wire.title) {
    conversation.title = wire.title;
    // The title is the conversation's: it names its question only when that is the only one and it
    // was answered (a failed question has no title, and a follow-up does not get the first one's).
    const only = questions.length === 1 ? questions[0] : undefined;
    if (only && only.state === 'completed' && !only.title) only.title = wire.title;
  }
  if (wire.createTime) conversation.createdAt = wire.createTime;
  if (wire.updateTime) conversation.updatedAt = wire.updateTime;
  // The share URL (`/deepsearch/<uuid>`): a secret, like the legacy read token.
  if (wire.url) conversation.shareUrl = wire.url;
  return conversation;
}

export function versionedSummary(wire: NonNullable<z.output<typeof VersionedListWire>['conversationSummaries']>[number]): ConversationSummary {
  const summary: ConversationSummary = { ref: wire.name };
  if (wire.title) summary.title = wire.title;
  if (wire.createTime) summary.createdAt = wire.createTime;
  if (wire.updateTime) summary.updatedAt = wire.updateTime;
  return summary;
}
