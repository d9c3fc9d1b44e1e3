// The process of one Vercel Workflow life: killpoint's own client of the kill protocol for this
// engine (src/harness/process/child-main.ts does the protocol's part). The run (scenario and
// system) comes from the file KILLPOINT_VW_RUN names, the interleaving picks this life may use from
// KILLPOINT_VW_PICKS. The child is one file with the built bundles and the SDK in it
// (child-bundle.ts), all loaded before a warm child waits for its life (most of a child's start is
// loading them).

import { deserializeScenario } from '../../../model/scenario-json.js';
import { ENV } from '../../process/protocol.js';
import { picksFromVariable, requiredVariable, runChildMain, runProtocolLife } from '../../process/child-main.js';
import { receiveLifeVariables } from '../../process/warm-start.js';
import { runVercelLife, type LoadedBundles } from './life.js';
import { NotOneRun } from './world-run.js';
import { VW_ENV, VW_EXIT_BAD_INPUT, type VercelRunSpec } from './run-spec.js';

/** The child's body, once its entry has loaded the bundles: waits for a life if warm, runs it, exits. */
export function runVercelChild(bundles: LoadedBundles): void {
  // A warm child waits here, loaded, for its life's variables (src/harness/process/warm-pool.ts).
  receiveLifeVariables();
  // The local world keeps its queue's agents and timers: the life is over once its result is written.
  runChildMain(() => life(bundles), { exitWhenDone: true });
}

function life(bundles: LoadedBundles): Promise<void> {
  return runProtocolLife<VercelRunSpec>(
    VW_ENV.run,
    (spec, { emit, onPick }) =>
      runVercelLife({
        scenario: deserializeScenario(spec.scenario),
        config: spec.config,
        stateDir: requiredVariable(ENV.stateDir),
        lifeIndex: Number(requiredVariable(ENV.life)),
        picks: picksFromVariable(VW_ENV.picks),
        bundles,
        emit,
        onPick,
      }),
    { badInputExit: (error) => (error instanceof NotOneRun ? VW_EXIT_BAD_INPUT : undefined) },
  );
}

