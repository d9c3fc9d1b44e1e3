// The process of one life of a user's Mastra workflow (user-module/child-main.ts); the run comes
// from the file KILLPOINT_MASTRA_MODULE_RUN names.

import type { BundledModule } from '../../../user-module/load.js';
import { runModuleChild } from '../../../user-module/child-main.js';
import { runMastraModuleLife } from './life.js';
import { MASTRA_MODULE_ENV, type MastraModuleSpec } from './spec.js';

export function startModuleChild(loaded?: BundledModule): void {
  runModuleChild<MastraModuleSpec>({ env: MASTRA_MODULE_ENV, life: runMastraModuleLife }, loaded);
}
