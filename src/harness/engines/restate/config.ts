// The Restate systems killpoint checks, by name: how the agent loop is written and how its writes
// are keyed. Shared by the parent and the child; imports no Restate.
//
//   service                 a Restate service whose handler is the agent: each model call and each
//                           tool call a `ctx.run` step (a reply's calls side by side), the answer
//                           delivered through the outbox once the invocation's output is recorded.
//                           No keys: a kill between a write's commit and its step's journal entry
//                           runs the step again on the retry (the gap).
//   service+keys            as service; every write carries the key invocation id + tool call id.
//   service+random-keys     (broken) keys from a fresh random id made inside the step, new in every
//                           life: they never match, so the check must catch the repeat.
//   ai-middleware           the agent loop on the AI SDK in the handler: each turn a generateText
//                           call, the model wrapped in Restate's durableCalls middleware (each model
//                           call a ctx.run step), the reply's tool calls ctx.run steps. No keys.
//   ai-middleware+keys      as ai-middleware; every write carries invocation id + tool call id.

export const RESTATE_MODES = ['service', 'service+keys', 'service+random-keys', 'ai-middleware', 'ai-middleware+keys'] as const;
export type RestateMode = (typeof RESTATE_MODES)[number];

export interface RestateConfig {
  mode: RestateMode;
  /** Who writes the agent loop: killpoint's handler, or the AI SDK's generateText under durableCalls. */
  loop: 'service' | 'ai-middleware';
  keys: 'none' | 'stable' | 'random';
  broken: boolean;
}

export function restateConfigNamed(name: string): RestateConfig | undefined {
  if (!(RESTATE_MODES as readonly string[]).includes(name)) return undefined;
  const mode = name as RestateMode;
  return {
    mode,
    loop: mode.startsWith('ai-middleware') ? 'ai-middleware' : 'service',
    keys: mode.endsWith('+random-keys') ? 'random' : mode.endsWith('+keys') ? 'stable' : 'none',
    broken: mode.endsWith('+random-keys'),
  };
}
