// The process of one life of a user's Restate service: the service, and killpoint's own client of
// the kill protocol (src/harness/process/child-main.ts does the protocol's part). The run comes
// from the file KILLPOINT_RESTATE_MODULE_RUN names. The bundled child starts it with the module
// already loaded; the unbundled one (child.ts) lets the life load it. A set-up that cannot be
// checked exits with its own status and one line on stderr: bad input.

// First: the SDK needs it on Node 20 (see ../shim.ts); it is called per request, not as it loads.
import '../shim.js';
import { ENV } from '../../../process/protocol.js';
import { picksFromVariable, requiredVariable, runChildMain, runProtocolLife } from '../../../process/child-main.js';
import { EXIT_BAD_SETUP, UserModuleSetupError } from '../../../user-module/setup-error.js';
import type { BundledModule } from '../../../user-module/load.js';
import { runRestateModuleLife } from './life.js';
import { RESTATE_MODULE_ENV, type RestateModuleRunFile } from './spec.js';

export function startModuleChild(loaded?: BundledModule): void {
  // The service keeps listening: the life is over once its result is written.
  runChildMain(
    () =>
      runProtocolLife<RestateModuleRunFile>(
        RESTATE_MODULE_ENV.run,
        (spec, { emit, onPick }) =>
          runRestateModuleLife({
            spec,
            ...(loaded === undefined ? {} : { loaded }),
            stateDir: requiredVariable(ENV.stateDir),
            picks: picksFromVariable(RESTATE_MODULE_ENV.picks),
            emit,
            onPick,
          }),
        { badInputExit: (error) => (error instanceof UserModuleSetupError ? EXIT_BAD_SETUP : undefined) },
      ),
    { exitWhenDone: true },
  );
}
