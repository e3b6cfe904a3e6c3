// Nothing secret may reach the database. The recorder's inputs are typed without secrets, but run
// options are free-form, so keys that look like credentials are dropped on the way in, at any depth.
const SECRET_KEY = /token|secret|password|passwd|authorization|cookie|api_?key|share_?url/i;

export function withoutSecretKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecretKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (!SECRET_KEY.test(key)) out[key] = withoutSecretKeys(inner);
  }
  return out;
}

/** A target URL without user:password and without a query string (which may carry a token). */
export function withoutUrlSecrets(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/**
 * A link kept whole (its query may name what it links to, as a trace URL's `trace_id` does) but for
 * user:password and query parameters named like a credential.
 */
export function withoutLinkSecrets(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    for (const key of [...parsed.searchParams.keys()]) if (SECRET_KEY.test(key)) parsed.searchParams.delete(key);
    return parsed.toString();
  } catch {
    return url;
  }
}
