// Conversation names as servers write them: one conversation whatever the user segment.
import { describe, expect, it } from 'vitest';
import { ConversationSet, conversationKey } from '../../src/deepsearch/names.js';

describe('conversation names', () => {
  it('are the same conversation under any user segment, and as a bare id', () => {
    const forms = ['users/476/conversations/2015', 'users/~self/conversations/2015', 'users/-/conversations/2015', '2015'];
    expect(new Set(forms.map(conversationKey)).size).toBe(1);
    const owned = new ConversationSet().add('users/~self/conversations/2015');
    for (const form of forms) expect(owned.has(form)).toBe(true);
    expect(owned.has('users/476/conversations/2016')).toBe(false);
    expect(owned.has('users/476/conversations/20')).toBe(false);
    expect(owned.delete('users/476/conversations/2015')).toBe(true);
    expect(owned.size).toBe(0);
  });

  it('leaves other refs as they are', () => {
    expect(conversationKey('users/476/conversations/2015/questions/1')).toBe('users/476/conversations/2015/questions/1');
    expect(conversationKey('opaque-ref')).toBe('opaque-ref');
  });
});
