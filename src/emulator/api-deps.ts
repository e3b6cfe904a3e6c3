import type { ConversationService } from './service.js';

/** What the built-in conversation APIs are made of. */
export interface ApiDeps {
  service: ConversationService;
  /** Base of share URLs and links, without a trailing slash. */
  publicUrl: string;
  /** What a legacy follow-up returns: the new Question alone, or the whole Conversation. */
  followUpReply: FollowUpReply;
}

export type FollowUpReply = 'question' | 'conversation';
