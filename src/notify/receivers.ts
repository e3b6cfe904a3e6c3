import { UsageError } from '../errors/errors.js';
import { redact, registerSecret } from '../redact.js';

/** What a receiver is sent: Slack's incoming-webhook body (`{"text": ...}`) or the versioned JSON payload. */
export type NotifyFormat = 'slack' | 'json';

export interface NotifyReceiver {
  format: NotifyFormat;
  url: URL;
  /** How messages name it: its place, format and origin, never its path (a webhook's path is its secret). */
  shown: string;
}

const FORMATS: readonly NotifyFormat[] = ['slack', 'json'];

/** A path this long is taken for a webhook's secret; a short one (`/hook`) is too common a text to redact everywhere. */
const SECRET_PATH_LENGTH = 16;

/**
 * The receivers of `--notify` (repeatable): `URL` (Slack-compatible), `json=URL` or `slack=URL`. A value that
 * is not an http(s) URL is a usage error before anything is asked. A webhook's secret is its path (Slack's,
 * Discord's, Teams') or its password: each is registered as a secret, so no log, error or payload spells it out.
 */
export function parseReceivers(values: readonly string[]): NotifyReceiver[] {
  return values.map((value, i) => {
    const prefixed = /^([a-z]+)=(.*)$/s.exec(value);
    const format = (prefixed?.[1] ?? 'slack') as NotifyFormat;
    if (!FORMATS.includes(format)) throw new UsageError(`--notify ${format}=...: unknown format "${format}"; give a URL (Slack-compatible) or json=URL`);
    const text = prefixed ? (prefixed[2] ?? '') : value;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new UsageError(`--notify ${JSON.stringify(redact(value))} is not a URL; give a webhook's, e.g. https://hooks.slack.com/services/... or json=https://ci.example.com/hook`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--notify needs an http or https URL, got ${url.protocol} (receiver ${i + 1})`);
    registerSecret(decodeURIComponent(url.password));
    if (url.pathname.length + url.search.length >= SECRET_PATH_LENGTH) registerSecret(url.pathname + url.search);
    return { format, url, shown: `receiver ${i + 1} (${format}, ${url.origin}/…)` };
  });
}
