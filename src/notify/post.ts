import { redact } from '../redact.js';
import type { NotifyPayload } from './payload.js';
import type { NotifyReceiver } from './receivers.js';

/** How long `--notify` may add to a run by default: every receiver is posted to at once, within it. */
export const NOTIFY_DEADLINE_MS = 5_000;

export interface Delivery {
  receiver: string;
  ok: boolean;
  /** What happened: `HTTP 200`, or why it was not delivered. */
  detail: string;
}

/** The body a receiver gets; passed through redaction last, so no token reaches a receiver whatever a label holds. */
export function bodyFor(receiver: NotifyReceiver, payload: NotifyPayload): string {
  return redact(JSON.stringify(receiver.format === 'json' ? payload : { text: payload.text }));
}

/**
 * Posts to one receiver, once (a retry would stretch the deadline), never following a redirect (a webhook that
 * moved is to be given anew, not guessed). Never throws: a receiver that is down, slow or failing is a Delivery
 * that says so. The deadline covers connecting, sending and reading the reply.
 */
async function deliver(receiver: NotifyReceiver, payload: NotifyPayload, signal: AbortSignal, deadlineMs: number): Promise<Delivery> {
  const fail = (detail: string): Delivery => ({ receiver: receiver.shown, ok: false, detail: redact(detail) });
  try {
    const response = await fetch(receiver.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'dsbench' },
      body: bodyFor(receiver, payload),
      redirect: 'manual',
      signal,
    });
    await response.arrayBuffer();
    if (response.status >= 300 && response.status < 400) return fail(`HTTP ${response.status} redirect, not followed; give the URL it moved to`);
    if (!response.ok) return fail(`HTTP ${response.status}; check the receiver's log`);
    return { receiver: receiver.shown, ok: true, detail: `HTTP ${response.status}` };
  } catch (error) {
    if (signal.aborted) return fail(`no reply within the deadline (${deadlineMs} ms, --notify-timeout); is it up and fast enough?`);
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    return fail(`${cause}; is it up?`);
  }
}

/** Posts to every receiver at once; resolves within `deadlineMs`, whatever they do. */
export async function deliverAll(receivers: readonly NotifyReceiver[], payload: NotifyPayload, deadlineMs: number): Promise<Delivery[]> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), deadlineMs);
  try {
    return await Promise.all(receivers.map((r) => deliver(r, payload, stop.signal, deadlineMs)));
  } finally {
    clearTimeout(timer);
  }
}
