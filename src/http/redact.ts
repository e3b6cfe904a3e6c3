// Secrets must never reach logs, errors, the database or CSV: every text that leaves the transport passes here.
// Each pattern with a word (lower case) that every text it matches holds: a pattern whose word is absent is
// skipped. Replacing only removes or keeps text, so the words of the original text stand for every step.
const PATTERNS: ReadonlyArray<[string, RegExp, string]> = [
  ['authorization', /(authorization["']?\s*[:=]\s*["']?(?:token|bearer)\s+)[^\s"',}]+/gi, '$1[REDACTED]'],
  ['bearer', /\b(bearer)\s+[A-Za-z0-9._~+/=-]{6,}/gi, '$1 [REDACTED]'],
  // After "token", a credential has a digit and some length; ordinary words ("token limit") do not.
  ['token', /\b(token)\s+(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [REDACTED]'],
  ['sgp_', /\bsgp_[A-Za-z0-9_]+/g, 'sgp_[REDACTED]'],
  ['token', /("?(?:read_?token|readToken|access_?token|accessToken|token)"?\s*[:=]\s*"?)[^"\s&,}]+/gi, '$1[REDACTED]'],
  ['/deepsearch/', /(\/deepsearch\/)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '$1[REDACTED]'],
  ['token=', /([?&](?:filter_read_token|token|access_token)=)[^&#\s]+/gi, '$1[REDACTED]'],
];

const known = new Set<string>();

/** Registers a secret seen at run time (a configured token, a read token) so it is redacted verbatim too. */
export function registerSecret(secret: string | undefined): void {
  if (secret && secret.length >= 4) known.add(secret);
}

/** Any pattern's word: most text (answers, titles, errors) holds none, and one test then stands for all seven. */
const ANY_WORD = /token|bearer|authorization|sgp_|\/deepsearch\//i;

export function redact(text: string): string {
  let out = text;
  for (const secret of known) if (out.includes(secret)) out = out.split(secret).join('[REDACTED]');
  if (!ANY_WORD.test(out)) return out;
  const lower = out.toLowerCase();
  for (const [word, re, replacement] of PATTERNS) if (lower.includes(word)) out = out.replace(re, replacement);
  return out;
}

/** Registers every value of a set of headers sent to a server (credentials, proxy headers). */
export function registerSecrets(values: Iterable<string>): void {
  for (const value of values) registerSecret(value.trim());
}

/** A redacted, single-line excerpt of a reply body for error messages. */
export function excerpt(body: string, max = 300): string {
  const flat = redact(body).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
