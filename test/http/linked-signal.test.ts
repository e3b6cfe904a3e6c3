import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkedAbort, linkedSignal } from '../../src/http/linked-signal.js';

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

  it('holds one listener on a long-lived parent however many children it has; a disposed child no longer follows it', () => {
    const parent = new AbortController();
    const linked = Array.from({ length: 1000 }, () => linkedSignal(parent.signal, 60_000));
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    for (const l of linked.slice(1)) l.dispose();
    const again = linkedSignal(parent.signal, 60_000);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    parent.abort(new Error('stop'));
    expect(linked.slice(1).some((l) => l.signal.aborted)).toBe(false);
    expect([linked[0]!.signal.aborted, again.signal.aborted]).toEqual([true, true]);
    expect((again.signal.reason as Error).message).toBe('stop');
    linked[0]!.dispose();
    again.dispose();
  });

  it('follows a new parent after another one aborted', () => {
    const first = new AbortController();
    linkedSignal(first.signal).dispose();
    first.abort();
    const second = new AbortController();
    const linked = linkedSignal(second.signal);
    second.abort();
    expect(linked.signal.aborted).toBe(true);
  });
});

describe('linkedAbort', () => {
  const target = () => {
    const reasons: unknown[] = [];
    return { reasons, abort: (reason: unknown) => void reasons.push(reason) };
  };

  it("aborts its target with the parent's reason, through the parent's one listener, until disposed", () => {
    const parent = new AbortController();
    const followed = target();
    const disposed = target();
    const link = linkedAbort(parent.signal, 60_000, followed);
    linkedAbort(parent.signal, 60_000, disposed).dispose();
    linkedSignal(parent.signal, 60_000);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    parent.abort(new Error('stop'));
    expect(followed.reasons.map((r) => (r as Error).message)).toEqual(['stop']);
    expect(disposed.reasons).toEqual([]);
    expect(link.timedOut).toBe(false);
    link.dispose();
  });

  it('times out on its own timer and says so; a disposed link no longer fires', async () => {
    const parent = new AbortController();
    const slow = target();
    const link = linkedAbort(parent.signal, 5, slow);
    const quick = target();
    linkedAbort(parent.signal, 5, quick).dispose();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(link.timedOut).toBe(true);
    expect(slow.reasons).toHaveLength(1);
    expect((slow.reasons[0] as DOMException).name).toBe('TimeoutError');
    expect(quick.reasons).toEqual([]);
    expect(parent.signal.aborted).toBe(false);
    link.dispose();
  });

  it('aborts at once under a parent already aborted, and with no parent only on its time', () => {
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    const under = target();
    linkedAbort(parent.signal, 60_000, under).dispose();
    expect((under.reasons[0] as Error).message).toBe('gone');
    const alone = target();
    const link = linkedAbort(undefined, 60_000, alone);
    expect(alone.reasons).toEqual([]);
    link.dispose();
  });
});
