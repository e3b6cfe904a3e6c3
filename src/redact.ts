// Secrets must never reach logs, errors, the database or CSV: every text that leaves the transport passes here.
// Each pattern runs only on a text that passes its gate, on the lower-cased text: a word that every match
// holds and, for words common in ordinary prose ("token"), what must follow that word in any match (tried
// only where the word occurs, which is cheaper than a case-blind scan of the whole text). Lower-casing keeps
// every ASCII character of a match in place, and replacing only removes or keeps text, so the gates of the
// original text stand for every step.
export interface Pattern {
  word: string;
  /** Sticky; matches at an occurrence of `word` in the lower-cased text of every text `re` matches. */
  after?: RegExp;
  re: RegExp;
  replacement: string;
}

export const PATTERNS: readonly Pattern[] = [
  { word: 'authorization', re: /(authorization["']?\s*[:=]\s*["']?(?:token|bearer)\s+)[^\s"',}]+/gi, replacement: '$1[REDACTED]' },
  { word: 'bearer', re: /\b(bearer)\s+[A-Za-z0-9._~+/=-]{6,}/gi, replacement: '$1 [REDACTED]' },
  // After "token", a credential has a digit and some length; ordinary words ("token limit") do not.
  {
    word: 'token',
    after: /token\s+(?=[a-z0-9._~+/=-]*\d)[a-z0-9._~+/=-]{8,}/y,
    re: /\b(token)\s+(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,}/gi,
    replacement: '$1 [REDACTED]',
  },
  { word: 'sgp_', re: /\bsgp_[A-Za-z0-9_]+/g, replacement: 'sgp_[REDACTED]' },
  { word: 'token', after: /token"?\s*[:=]/y, re: /("?(?:read_?token|readToken|access_?token|accessToken|token)"?\s*[:=]\s*"?)[^"\s&,}]+/gi, replacement: '$1[REDACTED]' },
  { word: '/deepsearch/', re: /(\/deepsearch\/)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, replacement: '$1[REDACTED]' },
  { word: 'token=', re: /([?&](?:filter_read_token|token|access_token)=)[^&#\s]+/gi, replacement: '$1[REDACTED]' },
];

function passes(lower: string, { word, after }: Pattern): boolean {
  if (!after) return lower.includes(word);
  for (let at = lower.indexOf(word); at !== -1; at = lower.indexOf(word, at + 1)) {
    after.lastIndex = at;
    if (after.test(lower)) return true;
  }
  return false;
}

const known = new Set<string>();

/** An authorization value's scheme word: the credential is what follows it, and a server may echo that alone. */
const SCHEME = /^(?:token|bearer|basic|digest)\s+(\S.*)$/i;

/**
 * Registers a secret seen at run time (a configured token, a read token) so it is redacted verbatim too, and
 * the credential part of a `token <t>`, `Bearer <t>` or `Basic <b>` value on its own.
 */
export function registerSecret(secret: string | undefined): void {
  const whole = secret?.trim();
  if (!whole || whole.length < 4) return;
  known.add(whole);
  const credential = SCHEME.exec(whole)?.[1]?.trim();
  if (credential && credential.length >= 4) known.add(credential);
}

/**
 * Every gate at once, case-blind on the text itself: most text (prose with "token" in it) passes none, and
 * one scan then stands for all. Each pattern's every match also matches its alternative here (the gate's
 * classes are the pattern's, as case-blind), so a text this misses is one no pattern changes.
 */
const ANY_GATE = new RegExp(PATTERNS.map((p) => p.after?.source ?? p.word.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'i');

export function redact(text: string): string {
  let out = text;
  if (known.size > 0) for (const secret of known) if (out.includes(secret)) out = out.split(secret).join('[REDACTED]');
  if (!ANY_GATE.test(out)) return out;
  const lower = out.toLowerCase();
  for (const pattern of PATTERNS) if (passes(lower, pattern)) out = out.replace(pattern.re, pattern.replacement);
  return out;
}

/**
 * Header names whose values are credentials. Only these: an ordinary value (`x-forwarded-proto: https`)
 * registered as a secret would rewrite every answer that says it.
 */
const CREDENTIAL_HEADER = /^(?:authorization|proxy-authorization|cookie)$|token|key|secret|password/i;

/** Registers the credential-bearing values of headers sent to a server; a cookie's values one by one too. */
export function registerHeaderSecrets(headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!CREDENTIAL_HEADER.test(name)) continue;
    registerSecret(value);
    if (name.toLowerCase() === 'cookie') for (const pair of value.split(';')) registerSecret(pair.slice(pair.indexOf('=') + 1));
  }
}

/** A redacted, single-line excerpt of a reply body for error messages. */
export function excerpt(body: string, max = 300): string {
  const flat = redact(body).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
