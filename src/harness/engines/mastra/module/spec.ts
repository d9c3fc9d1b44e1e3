// A user's own Mastra workflow as killpoint checks it: the module that makes the workflow, the
// input it is started with, and the exports to call. Shared by the parent and the child; imports
// no Mastra.
//
// The module exports
//   createWorkflow(ctx)  a committed Mastra workflow (createWorkflow(...).then(...).commit()), not a
//                        promise of one (a workflow's then() is its builder's, so a promise of it
//                        never settles, and an async createWorkflow is bad input); killpoint registers it on a Mastra of its own whose storage
//                        is @mastra/libsql on a file in the run's folder, and starts it with the
//                        input (or restarts the run it finds);
//   readEffects(ctx)     optional: the side effects done so far, as records { kind, target?, args? },
//                        read from wherever the steps keep them (under ctx.dataDir, say). Without
//                        it, a run is judged on its result alone.
// `--workflow-export` and `--effects-export` name other exports.

import type { UserModuleTarget } from '../../../user-module/target.js';

/** What the module's functions are given: the same in every life of a run. */
export interface MastraModuleContext {
  /** A folder of the run's own, kept across its lives, for the steps' data. */
  dataDir: string;
  /** The run's id: a key made of it and a step's id names the run and the step. */
  runId: string;
}

export interface MastraModuleSpec extends UserModuleTarget {
  workflowExport: string;
  effectsExport: string;
}

export const DEFAULT_MASTRA_WORKFLOW_EXPORT = 'createWorkflow';
export const DEFAULT_MASTRA_EFFECTS_EXPORT = 'readEffects';

/** The run id of a user's workflow: one run per state folder, so it is the same in every run. */
export const MODULE_RUN_ID = 'killpoint-run';

/** Environment variables of the module child, beside the protocol's own. */
export const MASTRA_MODULE_ENV = { run: 'KILLPOINT_MASTRA_MODULE_RUN', picks: 'KILLPOINT_MASTRA_MODULE_PICKS' } as const;

/** The files a run keeps in its state folder: Mastra's storage, and the steps' data folder. */
export const MASTRA_MODULE_FILES = { storage: 'mastra.db', data: 'data' } as const;
