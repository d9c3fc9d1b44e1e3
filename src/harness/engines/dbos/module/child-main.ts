// The process of one life of a user's DBOS workflow (user-module/child-main.ts); the run comes from
// the file KILLPOINT_DBOS_MODULE_RUN names.

import type { BundledModule } from '../../../user-module/load.js';
import { runModuleChild } from '../../../user-module/child-main.js';
import { dbosWorkflowName, runDbosModuleLife } from './life.js';
import { DBOS_MODULE_ENV, type DbosModuleRunFile } from './spec.js';

export function startModuleChild(loaded?: BundledModule): void {
  // The pg client warns on stderr about queries DBOS overlaps; the warning would hide a real error line.
  process.noDeprecation = true;
  runModuleChild<DbosModuleRunFile>({ env: DBOS_MODULE_ENV, life: runDbosModuleLife, taskName: dbosWorkflowName }, loaded);
}
