// A Restate context whose `run` is killpoint's and whose every other member is the SDK's own, bound
// to the real context: how killpoint observes a handler's steps (a user's service, module/life.ts;
// the AI SDK loop under durableCalls, ai-middleware-agent.ts) without changing the handler's code.
// `also` puts killpoint's own in the place of other members (a user's service: `awakeable`, to see
// its waits, module/awakeables.ts).

import type * as restate from '@restatedev/restate-sdk';

export function contextWithRun<R>(ctx: restate.Context, run: R, also: Readonly<Record<string, unknown>> = {}): restate.Context {
  return new Proxy(ctx, {
    get(target, property) {
      if (property === 'run') return run;
      if (typeof property === 'string' && Object.hasOwn(also, property)) return also[property];
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
