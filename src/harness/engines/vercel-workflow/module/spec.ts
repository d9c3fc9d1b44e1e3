// A user's own Vercel workflow as killpoint checks it: the module that holds the "use workflow"
// function and its "use step" functions, the input the workflow is started with, and the exports
// to call. Shared by the parent and the child; imports no Workflow SDK.
//
// The module holds
//   a workflow           a "use workflow" function (the only one, or --workflow-export names it),
//                        compiled by the Workflow SDK's builder with the steps it calls and started
//                        with the input as its one argument;
//   readEffects(ctx)     the side effects done so far, as records { kind, target?, args? }, read
//                        from wherever the steps keep them.
// The steps find the run's data folder in the KILLPOINT_DATA_DIR variable, as they would find a
// database's URL: a step is compiled apart from the module and is given nothing but its arguments.

import type { UserModuleTarget } from '../../../user-module/target.js';

/** What readEffects is given: the same in every life of a run. */
export interface VercelModuleContext {
  /** A folder of the run's own, kept across its lives, for the steps' data (also KILLPOINT_DATA_DIR). */
  dataDir: string;
}

export interface VercelModuleSpec extends UserModuleTarget {
  /** The workflow's export; undefined: the module's only "use workflow" function. */
  workflowExport?: string;
  effectsExport: string;
}

/** One life's run file: the spec, the built bundles' folder and the workflow's id there. */
export interface VercelModuleRunFile extends VercelModuleSpec {
  bundles: string;
  workflowId: string;
}

export const DEFAULT_VW_EFFECTS_EXPORT = 'readEffects';

/** Where a step finds the run's data folder. */
export const DATA_DIR_VARIABLE = 'KILLPOINT_DATA_DIR';

/** Environment variables of the module child, beside the protocol's own. */
export const VW_MODULE_ENV = { run: 'KILLPOINT_VW_MODULE_RUN', picks: 'KILLPOINT_VW_MODULE_PICKS' } as const;

/** The run's state folder: the local world's folder, and the steps' data folder. */
export const VW_MODULE_FILES = { world: 'world', data: 'data' } as const;
