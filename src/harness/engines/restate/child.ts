// The process of one Restate life: the run's service, and killpoint's own client of the kill
// protocol for this engine (src/harness/process/child-main.ts does the protocol's part). The run
// (scenario, system, the session's server, the run's names) comes from the file
// KILLPOINT_RESTATE_RUN names, the interleaving picks this life may use from KILLPOINT_RESTATE_PICKS.

// First: the SDK needs it on Node 20 (see shim.ts).
import './shim.js';
import { ENV } from '../../process/protocol.js';
import { deserializeScenario } from '../../../model/scenario-json.js';
import { picksFromVariable, requiredVariable, runChildMain, runProtocolLife } from '../../process/child-main.js';
import { receiveLifeVariables } from '../../process/warm-start.js';
import { runRestateLife } from './life.js';
import { RESTATE_ENV, type RestateRunSpec } from './run-spec.js';

function life(): Promise<void> {
  return runProtocolLife<RestateRunSpec>(RESTATE_ENV.run, (spec, { emit, onPick }) =>
    runRestateLife({
      scenario: deserializeScenario(spec.scenario),
      config: spec.config,
      stateDir: requiredVariable(ENV.stateDir),
      ingressUrl: spec.ingressUrl,
      adminUrl: spec.adminUrl,
      run: spec.run,
      lifeIndex: Number(requiredVariable(ENV.life)),
      picks: picksFromVariable(RESTATE_ENV.picks),
      emit,
      onPick,
    }),
  );
}

// A warm child waits here, loaded, for its life's variables (src/harness/process/warm-pool.ts).
receiveLifeVariables();
// The service keeps listening: the life is over once its result is written.
runChildMain(life, { exitWhenDone: true });
