/**
 * A view of `target` whose every method passes what it throws through `onError` first (which may
 * rethrow something else); properties that are not functions read through unchanged. Each method's
 * wrapper is made once, not on every call (the recorder is called several times per question).
 */
export function onMethodError<T extends object>(target: T, onError: (error: unknown) => void): T {
  const wrappers = new Map<PropertyKey, { method: (...a: unknown[]) => unknown; wrapper: (...a: unknown[]) => unknown }>();
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const method = value as (...a: unknown[]) => unknown;
      const known = wrappers.get(property);
      if (known?.method === method) return known.wrapper;
      const wrapper = (...args: unknown[]) => {
        try {
          return method.apply(object, args);
        } catch (error) {
          onError(error);
          throw error;
        }
      };
      wrappers.set(property, { method, wrapper });
      return wrapper;
    },
  });
}
