import { createHash } from 'node:crypto';
import type { ResolvedQuestion, ResolvedSearch } from './resolve-suite.js';

// What defines an item, hashed: a question's text, follow-ups and expectations; a search's query, its
// parameters and expectations. An id, tags, repeats, timeouts and polling are how it is run, not what it
// asks, and change no hash. Comparisons tell an edited item from its old self by it.

/** JSON with every object's keys sorted: the same definition gives the same text whatever the key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export function questionDefinitionHash(q: ResolvedQuestion): string {
  return sha256(canonical({ kind: 'question', text: q.text, followups: q.followups, expect: q.expect }));
}

export function searchDefinitionHash(s: ResolvedSearch): string {
  const { id: _id, tags: _tags, repeats: _repeats, timeoutMs: _timeout, ...definition } = s;
  return sha256(canonical(definition));
}
