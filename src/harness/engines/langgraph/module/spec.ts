// A user's own LangGraph agent as killpoint checks it: the module that builds the graph, the input
// the run is started with, and the exports to call. Shared by the parent and the child; imports no
// LangChain.
//
// The module exports
//   createGraph(ctx)  a compiled graph (or a promise of one) built with ctx.checkpointer, keeping the
//                     agent's own data (its ledger, its outbox) under ctx.dataDir;
//   readEffects(ctx)  the side effects done so far, as records { kind, target?, args? }.
// `--graph-export` and `--effects-export` name other exports.

import type { UserModuleTarget } from '../../../user-module/target.js';

/** What the module's functions are given: the same in every life of a run. */
export interface LangGraphModuleContext {
  /** killpoint's durable checkpointer (SQLite in the run's folder), which emits its saves as events. */
  checkpointer: unknown;
  /** A folder of the run's own, kept across its lives, for the agent's data. */
  dataDir: string;
  /** The thread the run is on (killpoint's). */
  threadId: string;
}

/** The module, its input (the graph's input for `invoke`) and the exports to call. */
export interface LangGraphModuleSpec extends UserModuleTarget {
  graphExport: string;
  effectsExport: string;
}

export const DEFAULT_GRAPH_EXPORT = 'createGraph';
export const DEFAULT_EFFECTS_EXPORT = 'readEffects';

/** Environment variables of the module child, beside the protocol's own (src/harness/process/protocol.ts). */
export const MODULE_ENV = { run: 'KILLPOINT_LG_MODULE_RUN', picks: 'KILLPOINT_LG_MODULE_PICKS' } as const;



/** The files a run keeps in its state folder: LangGraph's checkpoints and the agent's folder. */
export const MODULE_STATE_FILES = { checkpoints: 'checkpoints.sqlite', data: 'data' } as const;
