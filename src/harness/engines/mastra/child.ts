// The process of one Mastra life: killpoint's own client of the kill protocol for this engine
// (src/harness/process/child-main.ts does the protocol's part). The run (scenario, system) comes
// from the file KILLPOINT_MASTRA_RUN names, the interleaving picks this life may use from
// KILLPOINT_MASTRA_PICKS.

import { ENV } from '../../process/protocol.js';
import { deserializeScenario } from '../../../model/scenario-json.js';
import { picksFromVariable, requiredVariable, runChildMain, runProtocolLife } from '../../process/child-main.js';
import { receiveLifeVariables } from '../../process/warm-start.js';
import { runMastraLife } from './life.js';
import { MASTRA_ENV, type MastraRunSpec } from './run-spec.js';

function life(): Promise<void> {
  return runProtocolLife<MastraRunSpec>(MASTRA_ENV.run, (spec, { emit, onPick }) =>
    runMastraLife({
      scenario: deserializeScenario(spec.scenario),
      config: spec.config,
      stateDir: requiredVariable(ENV.stateDir),
      picks: picksFromVariable(MASTRA_ENV.picks),
      emit,
      onPick,
    }),
  );
}

// A warm child waits here, loaded, for its life's variables (src/harness/process/warm-pool.ts).
receiveLifeVariables();
// libSQL's client keeps its connection open: the life is over once its result is written.
runChildMain(life, { exitWhenDone: true });
