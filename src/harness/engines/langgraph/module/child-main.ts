// The process of one life of a user's LangGraph agent: killpoint's own client of the kill protocol
// (src/harness/process/child-main.ts does the protocol's part). The run (the module, its input,
// its exports) comes from the file KILLPOINT_LG_MODULE_RUN names. The bundled child (bundle.ts)
// starts it with the module already loaded; the unbundled one (child.ts) lets the life load it. A
// set-up that cannot be checked exits with its own status and one line on stderr: bad input.

import { runModuleChild } from '../../../user-module/child-main.js';
import { NotACheckpointDatabase } from '../checkpoint-file.js';
import { runModuleLife, type LoadedGraphModule } from './life.js';
import { MODULE_ENV, type LangGraphModuleSpec } from './spec.js';

export function startModuleChild(loaded?: LoadedGraphModule): void {
  runModuleChild<LangGraphModuleSpec, LoadedGraphModule>({ env: MODULE_ENV, life: runModuleLife, alsoBadInput: (error) => error instanceof NotACheckpointDatabase }, loaded);
}
