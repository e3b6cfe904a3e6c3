import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkedSignal } from '../../src/http/linked-signal.js';

describe('linkedSignal', () => {
  it('aborts with its parent, and says it did not time out', () => {
    const parent = new AbortController();
    const linked = linkedSignal(parent.signal, 60_000);
    parent.abort(new Error('stop'));
    expect(linked.signal.aborted).toBe(true);
    expect((linked.signal.reason as Error).message).toBe('stop');
    expect(linked.timedOut).toBe(false);
    linked.dispose();
  });

  it('aborts on its own time and says so', async () => {
    const parent = new AbortController();
    const linked = linkedSignal(parent.signal, 5);
    await new Promise((resolve) => linked.signal.addEventListener('abort', resolve));
    expect(linked.timedOut).toBe(true);
    expect(parent.signal.aborted).toBe(false);
    linked.dispose();
  });

  it('starts aborted under an aborted parent', () => {
    const parent = new AbortController();
    parent.abort();
    expect(linkedSignal(parent.signal).signal.aborted).toBe(true);
  });

  it('leaves nothing on a long-lived parent once disposed, and no longer follows it', () => {
    const parent = new AbortController();
    const linked = Array.from({ length: 1000 }, () => linkedSignal(parent.signal, 60_000));
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1000);
    for (const l of linked) l.dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    parent.abort();
    expect(linked.some((l) => l.signal.aborted)).toBe(false);
  });
});
