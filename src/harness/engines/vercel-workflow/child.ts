// The process of one Vercel Workflow life: killpoint's own client of the kill protocol for this
// engine (src/harness/process/child-main.ts does the protocol's part). The run (scenario and
// system) comes from the file KILLPOINT_VW_RUN names, the interleaving picks this life may use from
// KILLPOINT_VW_PICKS, the built bundles' folder from KILLPOINT_VW_BUNDLES. The bundles are loaded
// before a warm child waits for its life (most of a child's start is loading them).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ENV } from '../../process/protocol.js';
import { deserializeScenario } from '../../../model/scenario-json.js';
import { picksFromVariable, requiredVariable, runChildMain, runProtocolLife } from '../../process/child-main.js';
import { receiveLifeVariables } from '../../process/warm-start.js';
import { runVercelLife, type LoadedBundles } from './life.js';
import { NotOneRun } from './world-run.js';
import { BUNDLE_FILES, VW_ENV, VW_EXIT_BAD_INPUT, type VercelRunSpec, type WorkflowIds } from './run-spec.js';

async function loadBundles(dir: string): Promise<LoadedBundles> {
  const [workflows, steps] = await Promise.all([import(pathToFileURL(join(dir, BUNDLE_FILES.workflows)).href), import(pathToFileURL(join(dir, BUNDLE_FILES.steps)).href)]);
  const ids = JSON.parse(readFileSync(join(dir, BUNDLE_FILES.ids), 'utf8')) as WorkflowIds;
  return { workflows, steps, ids } as LoadedBundles;
}

const bundles = await loadBundles(requiredVariable(VW_ENV.bundles));
// A warm child waits here, loaded, for its life's variables (src/harness/process/warm-pool.ts).
receiveLifeVariables();

function life(): Promise<void> {
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

// The local world keeps its queue's agents and timers: the life is over once its result is written.
runChildMain(life, { exitWhenDone: true });
