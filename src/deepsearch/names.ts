/**
 * Which conversation a ref names, whatever form the server wrote it in. A versioned name's user segment
 * varies by who wrote it: a create sent as `users/~self` is answered `users/476/conversations/2015` by real
 * servers, clients and fixtures write `users/-`, and a bare number names the caller's own. The conversation
 * id alone tells conversations apart on one instance, so `users/<anything>/conversations/<id>` and `<id>`
 * are the same conversation.
 */
export function conversationKey(ref: string): string {
  const named = /^users\/[^/]+\/conversations\/([^/]+)$/.exec(ref);
  return named ? named[1]! : ref;
}

/** A set of conversations by conversationKey: `has` finds a conversation under any of its names. */
export class ConversationSet extends Set<string> {
  override add(ref: string): this {
    return super.add(conversationKey(ref));
  }

  override has(ref: string): boolean {
    return super.has(conversationKey(ref));
  }

  override delete(ref: string): boolean {
    return super.delete(conversationKey(ref));
  }
}
