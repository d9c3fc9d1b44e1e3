// The process of one life of a user's Restate service (user-module/child-main.ts); the run comes
// from the file KILLPOINT_RESTATE_MODULE_RUN names.

// First: the SDK needs it on Node 20 (see ../shim.ts); it is called per request, not as it loads.
import '../shim.js';
import type { BundledModule } from '../../../user-module/load.js';
import { runModuleChild } from '../../../user-module/child-main.js';
import { restateHandlerName, runRestateModuleLife } from './life.js';
import { RESTATE_MODULE_ENV, type RestateModuleRunFile } from './spec.js';

export function startModuleChild(loaded?: BundledModule): void {
  runModuleChild<RestateModuleRunFile>({ env: RESTATE_MODULE_ENV, life: runRestateModuleLife, taskName: restateHandlerName, ownOrigins: (spec) => [spec.ingressUrl, spec.adminUrl] }, loaded);
}
