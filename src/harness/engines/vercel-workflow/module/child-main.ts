// The process of one life of a user's Vercel workflow (user-module/child-main.ts); the run comes
// from the file KILLPOINT_VW_MODULE_RUN names. A world that is not one run's is bad input too.

import type { BundledModule } from '../../../user-module/load.js';
import { runModuleChild } from '../../../user-module/child-main.js';
import { NotOneRun } from '../world-run.js';
import { runVercelModuleLife } from './life.js';
import { VW_MODULE_ENV, type VercelModuleRunFile } from './spec.js';

export function startModuleChild(loaded?: BundledModule): void {
  runModuleChild<VercelModuleRunFile>({ env: VW_MODULE_ENV, life: runVercelModuleLife, alsoBadInput: (error) => error instanceof NotOneRun }, loaded);
}
