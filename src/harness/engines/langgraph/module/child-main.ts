// The process of one life of a user's LangGraph agent: killpoint's own client of the kill protocol
// (src/harness/process/child-main.ts does the protocol's part). The run (the module, its input,
// its exports) comes from the file KILLPOINT_LG_MODULE_RUN names. The bundled child (bundle.ts)
// starts it with the module already loaded; the unbundled one (child.ts) lets the life load it. A
// set-up that cannot be checked exits with its own status and one line on stderr: bad input.

import { ENV } from '../../../process/protocol.js';
import { picksFromVariable, requiredVariable, runChildMain, runProtocolLife } from '../../../process/child-main.js';
import { NotACheckpointDatabase } from '../checkpoint-file.js';
import { runModuleLife, type LoadedGraphModule } from './life.js';
import { EXIT_BAD_SETUP, UserModuleSetupError } from '../../../user-module/setup-error.js';
import { MODULE_ENV, type ModuleRunFile } from './spec.js';

export function startModuleChild(loaded?: LoadedGraphModule): void {
  // A user's graph may leave timers or connections open: the life is over when its run is.
  runChildMain(
    () =>
      runProtocolLife<ModuleRunFile>(
        MODULE_ENV.run,
        (spec, { emit, onPick }) => runModuleLife({ spec, stateDir: requiredVariable(ENV.stateDir), picks: picksFromVariable(MODULE_ENV.picks), emit, onPick, ...(loaded === undefined ? {} : { loaded }) }),
        { badInputExit: (error) => (error instanceof UserModuleSetupError || error instanceof NotACheckpointDatabase ? EXIT_BAD_SETUP : undefined) },
      ),
    { exitWhenDone: true },
  );
}
