// redact() runs a pattern only when the text passes its gate (a word, and what follows the word): the gates
// must never skip a pattern that would have matched. Checked against every pattern applied unconditionally.
import { describe, expect, it } from 'vitest';
import { PATTERNS, redact } from '../src/redact.js';

const ungated = (text: string): string => PATTERNS.reduce((out, p) => out.replace(p.re, p.replacement), text);

const PIECES = [
  'token', 'TOKEN', 'Token', 'read_token', 'readToken', 'access_token', 'accessToken', 'bearer', 'Bearer', 'authorization', 'Authorization',
  'sgp_', 'sgp_abc123', '/deepsearch/', '/DeepSearch/', '6c1f2b1e-1111-2222-3333-444455556666', '?token=', '&access_token=', '?filter_read_token=',
  ' ', '  ', '\n', '\t', ':', '=', ' : ', '"', "'", ',', '}', '&', 'limit', 'budget', 'abcdefgh', 'abc123def456', 'x9', '12345678', '-._~+/', 'ü', 'İ', '\u212A',
];

function texts(count: number, seed: number): string[] {
  let x = seed;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
  return Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(next() * 12) }, () => PIECES[Math.floor(next() * PIECES.length)]).join(''));
}

describe('redact gates', () => {
  it('give the same text as every pattern applied unconditionally, over 20,000 mixed texts', () => {
    const differ = texts(20_000, 7).filter((t) => redact(t) !== ungated(t));
    expect(differ).toEqual([]);
  });

  it('find a secret after an ordinary use of the same word', () => {
    expect(redact('the token limit was hit; token abcdefgh1 then')).toBe('the token limit was hit; token [REDACTED] then');
    expect(redact('token budget, then "token": "secretvalue"')).toBe('token budget, then "token": "[REDACTED]"');
  });
});
