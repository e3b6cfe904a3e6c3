import type { Answer } from './answer.js';
import type { Usage } from './usage.js';

// How a question ends, as the agent decides it and both wire formats report it.

export type FailureKind =
  | 'token-limit'
  | 'internal'
  | 'output-limit'
  | 'output-limit-no-answer'
  | 'quota-exceeded'
  | 'entitlement-exceeded'
  | 'rate-limited'
  | 'cancelled';

export type Outcome =
  | { kind: 'completed'; answer: Answer; usage: Usage }
  | { kind: 'failed'; failure: FailureKind; usage: Usage; /** What was written before an output limit stopped the answer. */ partial?: Answer };
