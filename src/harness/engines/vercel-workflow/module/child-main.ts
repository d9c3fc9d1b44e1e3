// The process of one life of a user's Vercel workflow: killpoint's own client of the kill protocol
// (src/harness/process/child-main.ts does the protocol's part). The run comes from the file
// KILLPOINT_VW_MODULE_RUN names. The bundled child starts it with the module already loaded; the
// unbundled one (child.ts) lets the life load it. A set-up that cannot be checked (the module, or a
// world that is not one run's) exits with its own status and one line on stderr: bad input.

import { ENV } from '../../../process/protocol.js';
import { picksFromVariable, requiredVariable, runChildMain, runProtocolLife } from '../../../process/child-main.js';
import { EXIT_BAD_SETUP, UserModuleSetupError } from '../../../user-module/setup-error.js';
import type { BundledModule } from '../../../user-module/load.js';
import { NotOneRun } from '../world-run.js';
import { runVercelModuleLife } from './life.js';
import { VW_MODULE_ENV, type VercelModuleRunFile } from './spec.js';

export function startModuleChild(loaded?: BundledModule): void {
  // The local world keeps its queue's agents and timers: the life is over once its result is written.
  runChildMain(
    () =>
      runProtocolLife<VercelModuleRunFile>(
        VW_MODULE_ENV.run,
        (spec, { emit, onPick }) =>
          runVercelModuleLife({
            spec,
            ...(loaded === undefined ? {} : { loaded }),
            stateDir: requiredVariable(ENV.stateDir),
            picks: picksFromVariable(VW_MODULE_ENV.picks),
            emit,
            onPick,
          }),
        { badInputExit: (error) => (error instanceof UserModuleSetupError || error instanceof NotOneRun ? EXIT_BAD_SETUP : undefined) },
      ),
    { exitWhenDone: true },
  );
}
