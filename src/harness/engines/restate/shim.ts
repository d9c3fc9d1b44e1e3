// The Restate SDK calls Promise.withResolvers (Node 22 and later) on every request it serves, and
// says nothing of the Node it needs: on Node 20 every request fails and the server retries until
// it gives up. The child loads this before it serves anything. It adds the method only where it is
// missing, with the meaning the language gives it.

interface WithResolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

const PromiseConstructor = Promise as unknown as { withResolvers?: <T>() => WithResolvers<T> };
if (typeof PromiseConstructor.withResolvers !== 'function') {
  PromiseConstructor.withResolvers = function withResolvers<T>(): WithResolvers<T> {
    let resolve!: WithResolvers<T>['resolve'];
    let reject!: WithResolvers<T>['reject'];
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}
