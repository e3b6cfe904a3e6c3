import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkedSignal, reusableLinkedSignal } from '../../src/http/linked-signal.js';

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

describe('reusableLinkedSignal', () => {
  it('gives attempts one after another under one parent one signal, linked to the parent once', () => {
    const parent = new AbortController();
    const first = reusableLinkedSignal(parent.signal, 60_000);
    first.dispose();
    const second = reusableLinkedSignal(parent.signal, 60_000);
    expect(second.signal).toBe(first.signal);
    // One still under way: the next gets a signal of its own.
    const beside = reusableLinkedSignal(parent.signal, 60_000);
    expect(beside.signal).not.toBe(second.signal);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(2);
    beside.dispose();
    reusableLinkedSignal(parent.signal, 60_000).dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(2);
    parent.abort(new Error('stop'));
    expect(second.signal.aborted).toBe(true);
    expect(second.timedOut).toBe(false);
    second.dispose();
  });

  it('times out each attempt on its own timer; after a timeout the next attempt has a fresh signal', async () => {
    const parent = new AbortController();
    const slow = reusableLinkedSignal(parent.signal, 5);
    await new Promise((resolve) => slow.signal.addEventListener('abort', resolve));
    expect(slow.timedOut).toBe(true);
    slow.dispose();
    const next = reusableLinkedSignal(parent.signal, 60_000);
    expect(next.signal.aborted).toBe(false);
    expect(next.timedOut).toBe(false);
    // A disposed attempt's timer no longer fires.
    next.dispose();
    const after = reusableLinkedSignal(parent.signal, 5);
    after.dispose();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(after.signal.aborted).toBe(false);
    expect(parent.signal.aborted).toBe(false);
    parent.abort();
    expect(next.signal.aborted).toBe(true);
  });
});
