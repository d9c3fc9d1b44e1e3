// The Restate systems killpoint checks, by name: how the agent's writes are keyed. Shared by the
// parent and the child; imports no Restate.
//
//   service              a Restate service whose handler is the agent: each model call and each
//                        tool call a `ctx.run` step (a reply's calls side by side), the answer
//                        delivered through the outbox once the invocation's output is recorded. No
//                        keys: a kill between a write's commit and its step's journal entry runs the
//                        step again on the retry (the gap).
//   service+keys         as service; every write carries the key invocation id + tool call id.
//   service+random-keys  (broken) keys from a fresh random id made inside the step, new in every
//                        life: they never match, so the check must catch the repeat.

export const RESTATE_MODES = ['service', 'service+keys', 'service+random-keys'] as const;
export type RestateMode = (typeof RESTATE_MODES)[number];

export interface RestateConfig {
  mode: RestateMode;
  keys: 'none' | 'stable' | 'random';
  broken: boolean;
}

export function restateConfigNamed(name: string): RestateConfig | undefined {
  if (!(RESTATE_MODES as readonly string[]).includes(name)) return undefined;
  const mode = name as RestateMode;
  return {
    mode,
    keys: mode === 'service+keys' ? 'stable' : mode === 'service+random-keys' ? 'random' : 'none',
    broken: mode === 'service+random-keys',
  };
}
