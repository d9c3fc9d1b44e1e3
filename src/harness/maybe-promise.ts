// A value now, or a promise of one: what a system under test answers (in memory at once, from
// processes later), and so what everything that drives one answers. Chained with these helpers,
// plain values stay plain: no promise and no microtask is made until a promise is met.

export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/** `f` of the value: at once when it is plain, once it settles when it is a promise. */
export function andThen<T, U>(value: MaybePromise<T>, f: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isPromise(value) ? value.then(f) : f(value);
}

/**
 * Runs `body`, then `last` whatever happened (a `finally` for work that may answer with a promise):
 * the body's error or value stands once `last` has run, unless `last` fails itself.
 */
export function andFinally<T>(body: () => MaybePromise<T>, last: () => MaybePromise<void>): MaybePromise<T> {
  let result: MaybePromise<T>;
  try {
    result = body();
  } catch (error) {
    const done = last();
    if (isPromise(done)) return done.then(() => Promise.reject(error));
    throw error;
  }
  if (isPromise(result)) return result.finally(last);
  const done = last();
  return isPromise(done) ? done.then(() => result) : result;
}
