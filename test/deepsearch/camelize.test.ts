import { describe, expect, it } from 'vitest';
import { camelizeKeys } from '../../src/deepsearch/wire.js';

describe('camelizeKeys', () => {
  it('renames snake_case keys at any depth, in arrays too, and an explicit camelCase twin wins', () => {
    const reply = { name: 'c/1', questions: [{ id: 1, stats: { time_millis: 5, totalTokens: 3 } }, { created_at: 'x' }], update_time: 't', updateTime: 'kept' };
    expect(camelizeKeys(reply)).toEqual({ name: 'c/1', questions: [{ id: 1, stats: { timeMillis: 5, totalTokens: 3 } }, { createdAt: 'x' }], updateTime: 'kept' });
    // The input is not changed.
    expect(reply.questions[0]!.stats).toEqual({ time_millis: 5, totalTokens: 3 });
  });

  it('returns a reply with no snake_case key as it is, and leaves values alone', () => {
    const reply = { name: 'c/1', questions: [{ answer: 'uses retry_policy', sources: [] }], n: null };
    expect(camelizeKeys(reply)).toBe(reply);
    expect(camelizeKeys(['a_b', 1, null])).toEqual(['a_b', 1, null]);
  });
});
