/** A signal that aborts when its parent does, or after its own time; `dispose()` unlinks it from both. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** It aborted because its own time ran out (not its parent). */
  readonly timedOut: boolean;
  dispose(): void;
}

/**
 * What to abort when a parent aborts, behind the parent's one listener: a signal walks its whole list of
 * listeners on every add and remove, and a run's signal is the parent of every item in flight.
 */
const children = new WeakMap<AbortSignal, Set<() => void>>();

function childrenOf(parent: AbortSignal): Set<() => void> {
  let set = children.get(parent);
  if (set === undefined) {
    const made = new Set<() => void>();
    parent.addEventListener(
      'abort',
      () => {
        children.delete(parent);
        for (const abort of made) abort();
      },
      { once: true },
    );
    children.set(parent, made);
    set = made;
  }
  return set;
}

/**
 * Used instead of `AbortSignal.any([parent, AbortSignal.timeout(ms)])` on hot paths: on Node 20 a
 * signal made by `any` that has had an abort listener stays reachable from its long-lived parent,
 * and each one leaves an entry in the parent's set of dependants, so a run retained about 1 KB per
 * request and question until it ended. This one is linked to its parent only until disposed.
 */
export function linkedSignal(parent: AbortSignal | undefined, ms?: number): LinkedSignal {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else if (parent) childrenOf(parent).add(onAbort);
  const timer =
    ms === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort(timeoutReason());
        }, ms);
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose() {
      clearTimeout(timer);
      if (parent) children.get(parent)?.delete(onAbort);
    },
  };
}

interface Reusable {
  controller: AbortController;
  timer: NodeJS.Timeout | undefined;
  timedOut: boolean;
  busy: boolean;
}

/** One reusable controller per parent; the parent's one listener aborts whichever is current. */
const reusables = new WeakMap<AbortSignal, Reusable>();

/**
 * Like `linkedSignal(parent, ms)` for an attempt whose whole reply is read before it is disposed: an item's
 * requests follow one another under the item's signal, so they share one controller, linked to the parent
 * once and re-armed with each attempt's timer (a new one only after it aborted; a fresh linkedSignal when
 * another attempt under the same parent is still under way). About a third of the per-request cost of
 * signals, on every request of a run.
 */
export function reusableLinkedSignal(parent: AbortSignal | undefined, ms: number): LinkedSignal {
  if (parent === undefined || parent.aborted) return linkedSignal(parent, ms);
  let reusable = reusables.get(parent);
  if (reusable === undefined) {
    const made: Reusable = { controller: new AbortController(), timer: undefined, timedOut: false, busy: false };
    parent.addEventListener('abort', () => made.controller.abort(parent.reason), { once: true });
    reusables.set(parent, made);
    reusable = made;
  } else if (reusable.busy) {
    return linkedSignal(parent, ms);
  } else if (reusable.controller.signal.aborted) {
    reusable.controller = new AbortController();
  }
  const r = reusable;
  const controller = r.controller;
  r.busy = true;
  r.timedOut = false;
  r.timer = setTimeout(() => {
    r.timedOut = true;
    controller.abort(timeoutReason());
  }, ms);
  return {
    signal: controller.signal,
    get timedOut() {
      return r.timedOut;
    },
    dispose() {
      clearTimeout(r.timer);
      r.busy = false;
    },
  };
}

/** The reason `AbortSignal.timeout` gives, so callers cannot tell the two apart. */
function timeoutReason(): DOMException {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}
