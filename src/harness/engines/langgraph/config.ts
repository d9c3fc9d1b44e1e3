// The LangGraph systems killpoint checks, by name: a graph shape, a durability mode, with or
// without idempotency keys, and (a broken variant that proves the check can fail) the resume rule
// LangGraph's own state seems to invite. Shared by the parent and the child; imports no LangChain.
//
//   toolnode  StateGraph(MessagesAnnotation) + agent node + ToolNode + toolsCondition: all calls of
//             one reply run in one task, whose results are saved together after the last one.
//   react     createReactAgent({ version: "v2" }): one task per call, each call's result saved as
//             soon as it finishes.
//   approval  react's graph with a person in the loop: a reply that calls `refund` first goes to
//             the node `approve`, which asks a person with interrupt() (the wait `approve#1`), and
//             its calls run once the answer comes (graphs.ts). A bundled task's person approves
//             every refund (BUNDLED_APPROVAL). Durability sync only, with or without keys.
//   exit | async | sync   LangGraph's durability: save only when the run exits, or after every
//             step (in the background, or before the next step starts).
//   +keys     every write carries the key thread id + tool call id.
//   /next-only-resume (broken) a recovery that takes an empty `getState().next` to mean the run
//             has finished; after a kill right after a task's writes were saved it has not.

import type { PackageNeeds } from '../../process/package-paths.js';

/** What a user's graph runs on beside its own code: LangChain's core, LangGraph and the SQLite checkpointer killpoint observes. */
export const LANGGRAPH_MODULE_NEEDS: PackageNeeds = { by: 'langgraph', packages: ['@langchain/core', '@langchain/langgraph', '@langchain/langgraph-checkpoint-sqlite'] };

/** The bundled graphs also declare their tools' schemas with zod. */
export const LANGGRAPH_BUNDLED_NEEDS: PackageNeeds = { by: 'langgraph', packages: [...LANGGRAPH_MODULE_NEEDS.packages, 'zod'] };

export const SHAPES = ['toolnode', 'react'] as const;
export const DURABILITIES = ['exit', 'async', 'sync'] as const;

/** The bundled shape whose agent asks a person before a refund (see above). */
export const APPROVAL_SHAPE = 'approval';

export type Shape = (typeof SHAPES)[number] | typeof APPROVAL_SHAPE;
export type Durability = (typeof DURABILITIES)[number];

/** How a recovery decides the run has already finished. */
export type ResumeRule = 'pending-writes' | 'next-only';

export interface LangGraphConfig {
  shape: Shape;
  durability: Durability;
  keys: boolean;
  resume: ResumeRule;
}

const BROKEN_RESUME = '/next-only-resume';

export function langGraphSystemName(c: LangGraphConfig): string {
  return `${c.shape}/${c.durability}${c.keys ? '+keys' : ''}${c.resume === 'next-only' ? BROKEN_RESUME : ''}`;
}

/**
 * The answer a bundled task's person gives at every wait of the approval shape: approve. The
 * scenarios script the model and the shop, not a person, and their scripts go on after a refund
 * as if it was allowed; a declined refund would need a branch no bundled task has.
 */
export const BUNDLED_APPROVAL = true;

/** Every system: each shape and durability, with and without keys, then the broken resume, then the approval shape. */
export function allLangGraphConfigs(): LangGraphConfig[] {
  const configs: LangGraphConfig[] = [];
  for (const shape of SHAPES) for (const durability of DURABILITIES) for (const keys of [false, true]) configs.push({ shape, durability, keys, resume: 'pending-writes' });
  for (const shape of SHAPES) configs.push({ shape, durability: 'sync', keys: true, resume: 'next-only' });
  for (const keys of [false, true]) configs.push({ shape: APPROVAL_SHAPE, durability: 'sync', keys, resume: 'pending-writes' });
  return configs;
}

export function langGraphConfigNamed(name: string): LangGraphConfig | undefined {
  return allLangGraphConfigs().find((c) => langGraphSystemName(c) === name);
}
