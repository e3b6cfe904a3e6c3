// Every normalized state and error code of both clients, through the emulator's trigger phrases,
// error rates and quota; the server's own code and message are kept next to the normalized code.
import { afterEach, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/model/conversation.js';
import { APIS, FAST, askAndSettle, client, closeAll, emulator } from '../helpers/emulator.js';

afterEach(closeAll);

const RESET = '2025-10-01T00:00:00Z';

interface Expected {
  trigger: string;
  message: string;
  /** The versioned state's message, where real servers word it otherwise. */
  versionedMessage?: string;
  legacy: { code: ErrorCode; rawCode: string };
  /** What the versioned API reports; a rate limit has no code of its own there. */
  versioned: { code: ErrorCode; rawCode: string };
  /** Versioned `retryTime`, when the failure has one. */
  retryTime?: RegExp;
}

const TRIGGERS: Expected[] = [
  {
    trigger: '[[token-limit]]',
    message: 'The search exceeded the maximum token limit.',
    versionedMessage: 'The search could not be completed, please try again with more defined context.',
    legacy: { code: 'TOKEN_LIMIT_EXCEEDED', rawCode: 'TokenLimitExceeded' },
    versioned: { code: 'TOKEN_LIMIT_EXCEEDED', rawCode: 'ERROR_TOKEN_LIMIT_EXCEEDED' },
  },
  {
    trigger: '[[internal-error]]',
    message: 'An internal error occurred while processing the question.',
    legacy: { code: 'INTERNAL', rawCode: 'InternalError' },
    versioned: { code: 'INTERNAL', rawCode: 'ERROR_INTERNAL' },
  },
  {
    trigger: '[[quota-exceeded]]',
    message: 'You have used all Deep Search credits of the current period.',
    // The legacy API has no quota or entitlement kind: both are RateLimitExceeded there.
    legacy: { code: 'RATE_LIMITED', rawCode: 'RateLimitExceeded' },
    versioned: { code: 'QUOTA_EXCEEDED', rawCode: 'ERROR_QUOTA_EXCEEDED' },
    retryTime: /^2025-10-01T00:00:00(\.000)?Z$/,
  },
  {
    trigger: '[[entitlement-exceeded]]',
    message: 'Your entitlement does not allow more Deep Search questions.',
    legacy: { code: 'RATE_LIMITED', rawCode: 'RateLimitExceeded' },
    versioned: { code: 'ENTITLEMENT_EXCEEDED', rawCode: 'ERROR_ENTITLEMENT_EXCEEDED' },
    retryTime: /^2025-10-01T00:00:00(\.000)?Z$/,
  },
  {
    // The versioned API's codes (spec) have no rate limit: the emulator reports it as a quota error
    // with a retry time (src/emulator/failures.ts), and the client keeps that code.
    trigger: '[[rate-limited]]',
    message: 'Too many Deep Search questions in a short time.',
    legacy: { code: 'RATE_LIMITED', rawCode: 'RateLimitExceeded' },
    versioned: { code: 'QUOTA_EXCEEDED', rawCode: 'ERROR_QUOTA_EXCEEDED' },
    retryTime: /^2025-09-2\dT\d\d:\d\d:\d\dZ$/,
  },
];

describe.each(APIS)('%s client: failed questions', (api) => {
  it.each(TRIGGERS)('$trigger ends in state error with its code, raw code and message', async (expected) => {
    const e = await emulator(FAST);
    const c = client(e, api);
    const { question, conversation } = await askAndSettle(c, `Where is retryPolicy defined? ${expected.trigger}`);
    expect(conversation.state).toBe('error');
    expect(question.state).toBe('error');
    expect(question.error).toMatchObject({ ...expected[api], message: (api === 'versioned' && expected.versionedMessage) || expected.message });
    expect(question.answer).toBeUndefined();
    expect(question).not.toHaveProperty('partial');
    expect(question.title).toBeUndefined();
    if (api === 'legacy') {
      // A failure keeps status "completed" on the wire, with an error object.
      expect(question.rawState).toBe('completed');
      expect(question.error!.title).toBeTruthy();
      expect(question.error!.details).toBeTruthy();
      expect(question.stats).toBeDefined();
      // Quota usage is reported on every conversation that is not processing.
      expect(conversation.quotaUsage).toMatchObject({ quotaLimit: -1, resetTime: RESET });
    } else {
      expect(question.rawState).toBe('error');
      expect(question).not.toHaveProperty('stats');
      expect(conversation).not.toHaveProperty('quotaUsage');
      if (expected.retryTime) expect(question.error!.retryTime).toMatch(expected.retryTime);
      else expect(question.error!.retryTime).toBeUndefined();
    }
  });

  it('a rate of token-limit errors ends plain questions in TOKEN_LIMIT_EXCEEDED', async () => {
    const e = await emulator({ ...FAST, agent: { tokenLimitRate: 1 } });
    const { question } = await askAndSettle(client(e, api), 'Where is retryPolicy defined?');
    expect(question.error?.code).toBe('TOKEN_LIMIT_EXCEEDED');
  });

  it('an answer past the output limit ends in TRUNCATED (raw ERROR_INTERNAL) and keeps its partial answer, marked partial', async () => {
    const e = await emulator(FAST);
    const { question, conversation } = await askAndSettle(client(e, api), 'Where is retryPolicy defined? [[output-limit]]');
    expect(question.state).toBe('error');
    expect(question.error).toMatchObject({
      code: 'TRUNCATED',
      rawCode: api === 'legacy' ? 'InternalError' : 'ERROR_INTERNAL',
      message: 'This response exceeded the maximum output length. Ask a follow-up question like "continue" to see more.',
    });
    if (api === 'versioned') expect(conversation.error?.code).toBe('TRUNCATED');
    expect(question.answer!.length).toBeGreaterThan(50);
    expect(question.partial).toBe(true);
    // The same question answered whole is longer: this is its first part.
    const whole = await askAndSettle(client(e, api), 'Where is retryPolicy defined?');
    expect(whole.question.partial).toBeUndefined();
    expect(whole.question.answer!.startsWith(question.answer!)).toBe(true);
    if (api === 'versioned') expect(conversation.title).toBeTruthy();
  });

  it('the output limit reached before any answer text ends in TRUNCATED_NO_ANSWER, with no answer and its tokens charged', async () => {
    const e = await emulator(FAST);
    const { question, conversation } = await askAndSettle(client(e, api), 'Where is retryPolicy defined? [[output-limit-no-answer]]');
    expect(question.state).toBe('error');
    expect(question.error).toMatchObject({ code: 'TRUNCATED_NO_ANSWER', rawCode: api === 'legacy' ? 'InternalError' : 'ERROR_INTERNAL' });
    expect(question.answer ?? '').toBe('');
    expect(question.partial).toBeUndefined();
    if (api === 'versioned') expect(conversation.error?.code).toBe('TRUNCATED_NO_ANSWER');
    else expect(question.stats!.credits).toBeGreaterThan(0);
  });

  it('a rate of internal errors ends plain questions in INTERNAL', async () => {
    const e = await emulator({ ...FAST, agent: { internalErrorRate: 1 } });
    const { question } = await askAndSettle(client(e, api), 'Where is retryPolicy defined?');
    expect(question.error?.code).toBe('INTERNAL');
  });

  it('a used-up quota refuses the next question (legacy: RateLimitExceeded, versioned: QUOTA_EXCEEDED)', async () => {
    const e = await emulator({ ...FAST, quota: { limit: 1 } });
    const c = client(e, api);
    const first = await askAndSettle(c, 'Where is retryPolicy defined?');
    expect(first.question.state).toBe('completed');
    const second = await askAndSettle(c, 'Where is backoffDelay defined?');
    expect(second.question.state).toBe('error');
    expect(second.question.error).toMatchObject({
      code: api === 'legacy' ? 'RATE_LIMITED' : 'QUOTA_EXCEEDED',
      message: 'You have used all Deep Search credits of the current period.',
    });
    if (api === 'legacy') {
      const credits = first.question.stats!.credits;
      expect(credits).toBeGreaterThanOrEqual(1);
      expect(first.conversation.quotaUsage).toEqual({ totalQuota: credits, quotaLimit: 1, resetTime: RESET });
      // A refused question is not charged.
      expect(second.conversation.quotaUsage).toEqual({ totalQuota: credits, quotaLimit: 1, resetTime: RESET });
      expect(second.question.stats!.credits).toBe(0);
    } else {
      expect(second.question.error!.retryTime).toMatch(/^2025-10-01T00:00:00(\.000)?Z$/);
    }
  });
});
