/**
 * A view of `target` whose every method passes what it throws through `onError` first (which may
 * rethrow something else); properties that are not functions read through unchanged.
 */
export function onMethodError<T extends object>(target: T, onError: (error: unknown) => void): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          return (value as (...a: unknown[]) => unknown).apply(object, args);
        } catch (error) {
          onError(error);
          throw error;
        }
      };
    },
  });
}
