// The process of one life of a user's DBOS workflow: killpoint's own client of the kill protocol
// (src/harness/process/child-main.ts does the protocol's part). The run comes from the file
// KILLPOINT_DBOS_MODULE_RUN names. The bundled child starts it with the module already loaded; the
// unbundled one (child.ts) lets the life load it. A set-up that cannot be checked exits with its own
// status and one line on stderr: bad input.

import { ENV } from '../../../process/protocol.js';
import { picksFromVariable, requiredVariable, runChildMain, runProtocolLife } from '../../../process/child-main.js';
import { EXIT_BAD_SETUP, UserModuleSetupError } from '../../../user-module/setup-error.js';
import type { BundledModule } from '../../../user-module/load.js';
import { runDbosModuleLife } from './life.js';
import { DBOS_MODULE_ENV, type DbosModuleRunFile } from './spec.js';

export function startModuleChild(loaded?: BundledModule): void {
  // The pg client warns on stderr about queries DBOS overlaps; the warning would hide a real error line.
  process.noDeprecation = true;
  // DBOS keeps its pool and queue loop running: the life is over once its result is written.
  runChildMain(
    () =>
      runProtocolLife<DbosModuleRunFile>(
        DBOS_MODULE_ENV.run,
        (spec, { emit, onPick }) =>
          runDbosModuleLife({
            spec,
            ...(loaded === undefined ? {} : { loaded }),
            stateDir: requiredVariable(ENV.stateDir),
            lifeIndex: Number(requiredVariable(ENV.life)),
            picks: picksFromVariable(DBOS_MODULE_ENV.picks),
            emit,
            onPick,
          }),
        { badInputExit: (error) => (error instanceof UserModuleSetupError ? EXIT_BAD_SETUP : undefined) },
      ),
    { exitWhenDone: true },
  );
}
