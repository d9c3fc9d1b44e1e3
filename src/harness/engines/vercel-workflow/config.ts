// The Vercel Workflow systems killpoint checks, by name. Shared by the parent and the child; imports
// no Workflow SDK.
//
//   durable-agent             a DurableAgent (@workflow/ai) driven by the scenario's scripted model:
//                             each model call the agent's own step (doStreamStep), each tool call a
//                             "use step" function. No keys: a kill between a write's commit and
//                             its step_completed event runs the step again (the gap).
//   durable-agent+keys        as durable-agent; every write carries the key workflowRunId +
//                             toolCallId, inserted OR IGNOREd through the shop's key table.
//   durable-agent+random-keys (broken) keys from a fresh random id made inside the step, new in
//                             every life: they never match, so the check must catch the repeat.
//   steps                     plain "use step" functions (the model call, each tool call) called
//                             from a "use workflow" loop, parallel calls in Promise.all. No keys.
//   steps+keys                as steps; every write carries the key workflowRunId + stepId.

export const SYSTEMS = ['durable-agent', 'durable-agent+keys', 'durable-agent+random-keys', 'steps', 'steps+keys'] as const;
export type VercelSystemName = (typeof SYSTEMS)[number];

export type Keys = 'none' | 'stable' | 'random';

export interface VercelConfig {
  name: VercelSystemName;
  /** Which workflow runs: the DurableAgent, or the plain steps. */
  shape: 'agent' | 'steps';
  keys: Keys;
  broken: boolean;
}

export function vercelConfigNamed(name: string): VercelConfig | undefined {
  const known = SYSTEMS.find((s) => s === name);
  if (known === undefined) return undefined;
  return {
    name: known,
    shape: known.startsWith('durable-agent') ? 'agent' : 'steps',
    keys: known.endsWith('+random-keys') ? 'random' : known.endsWith('+keys') ? 'stable' : 'none',
    broken: known.endsWith('+random-keys'),
  };
}

export function allVercelConfigs(): VercelConfig[] {
  return SYSTEMS.map((name) => vercelConfigNamed(name)!);
}
