// A user's own DBOS workflow as killpoint checks it: the module that registers the workflow, the
// input it is started with, and the exports to call. Shared by the parent and the child; imports
// no DBOS.
//
// The module exports
//   createWorkflow(ctx)  the workflow function DBOS.registerWorkflow returned (or a promise of it),
//                        registered with the steps it calls; killpoint configures and launches
//                        DBOS after it, on its own system database;
//   readEffects(ctx)     the side effects done so far, as records { kind, target?, args? }, read
//                        from wherever the workflow keeps them (under ctx.dataDir, say).
// `--workflow-export` and `--effects-export` name other exports.

import type { UserModuleTarget } from '../../../user-module/target.js';
import type { Backend } from '../config.js';
import type { RunIdentity } from '../run-spec.js';

/** What the module's functions are given: the same in every life of a run. */
export interface DbosModuleContext {
  /** A folder of the run's own, kept across its lives, for the workflow's data. */
  dataDir: string;
  /** The workflow's id, DBOS.workflowID's in every life (an alias of it): a key made of it and a step's number names the run and the step. */
  workflowId: string;
}

export interface DbosModuleSpec extends UserModuleTarget {
  workflowExport: string;
  effectsExport: string;
  backend: Backend;
}

/** One life's run file: the spec, the system database and the run's names there. */
export interface DbosModuleRunFile extends DbosModuleSpec {
  databaseUrl: string;
  run: RunIdentity;
}

export const DEFAULT_WORKFLOW_EXPORT = 'createWorkflow';
export const DEFAULT_DBOS_EFFECTS_EXPORT = 'readEffects';

/** Environment variables of the module child, beside the protocol's own. */
export const DBOS_MODULE_ENV = { run: 'KILLPOINT_DBOS_MODULE_RUN', picks: 'KILLPOINT_DBOS_MODULE_PICKS' } as const;

/** The files a run keeps in its state folder: its names in the system database, and the workflow's folder. */
export const DBOS_MODULE_FILES = { identity: 'identity.json', data: 'data' } as const;
