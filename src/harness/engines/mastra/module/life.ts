// One life of a user's Mastra workflow, inside its own process: the user's module (loaded by the
// bundled child, or here through tsx) makes the workflow, killpoint observes its steps (steps.ts),
// runs or restarts the run as Mastra recovers it (../recovery.ts) on the storage in the run's
// folder, and reads back what the run did: the effects the module reports, and the run's result.
//
// Events: each step's execute-start and execute-return, and after every snapshot Mastra persists,
// step-recorded (the step's number: its place in the workflow's graph) for each step whose result
// it records anew, or else snapshot-persisted.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Workflow } from '@mastra/core/workflows';
import { BatchGate } from '../../../interleaving.js';
import type { ModuleLifeInputs } from '../../../user-module/child-main.js';
import { effectsReader, exportedFunction, moduleOfLife, userCall } from '../../../user-module/load.js';
import { UserModuleSetupError } from '../../../user-module/setup-error.js';
import { runAndReadBack } from '../../../user-module/stores.js';
// The kinds this life emits, known where they are labelled.
import '../event-kinds.js';
import { runAsMastraRecovers } from '../recovery.js';
import { MASTRA_MODULE_FILES, MODULE_RUN_ID, type MastraModuleContext, type MastraModuleSpec } from './spec.js';
import { observeSteps } from './steps.js';

/** What createWorkflow returned, if it is a committed workflow; bad input naming the export otherwise. */
function workflowOf(made: unknown, workflowExport: string): Workflow {
  if (made instanceof Promise) throw new UserModuleSetupError(`${workflowExport}(ctx) returned a promise: return the workflow itself (a Mastra workflow has a then() of its own, its builder's, so a promise of one never settles)`);
  const w = made as { createRun?: unknown; stepGraph?: unknown; id?: unknown } | null;
  if (w === null || typeof w !== 'object' || typeof w.createRun !== 'function' || !Array.isArray(w.stepGraph) || typeof w.id !== 'string') {
    throw new UserModuleSetupError(`${workflowExport}(ctx) returned ${made === null ? 'null' : typeof made}: expected a committed Mastra workflow (createWorkflow(...).then(...).commit())`);
  }
  return made as Workflow;
}

/** Runs the life to its end; a workflow has no conversation of its own. */
export async function runMastraModuleLife(inputs: ModuleLifeInputs<MastraModuleSpec>): Promise<null> {
  const { spec, stateDir, emit } = inputs;
  const module = await moduleOfLife(inputs.loaded, spec.module, spec.moduleArg);
  const createWorkflow = exportedFunction(module, spec.workflowExport, spec.moduleArg);
  // Optional: without it the run is judged on its result alone.
  const readEffects = effectsReader(module, spec.effectsExport, spec.moduleArg);
  const dataDir = join(stateDir, MASTRA_MODULE_FILES.data);
  mkdirSync(dataDir, { recursive: true });
  const ctx: MastraModuleContext = { dataDir, runId: MODULE_RUN_ID };

  // Not awaited: a Mastra workflow is a thenable (its builder's then()), which await would call.
  const made = (await userCall(() => ({ made: createWorkflow(ctx) }), spec.workflowExport)) as { made: unknown };
  const workflow = workflowOf(made.made, spec.workflowExport);
  const stepIds = observeSteps(workflow as never, new BatchGate(inputs.picks, inputs.onPick), emit);
  await runAndReadBack({
    stateDir,
    readEffects: () => readEffects(ctx),
    effectsExport: spec.effectsExport,
    output: () =>
      runAsMastraRecovers({
        storageFile: join(stateDir, MASTRA_MODULE_FILES.storage),
        workflow,
        runId: MODULE_RUN_ID,
        input: spec.input,
        emit,
        recordOf: (stepName) => (stepIds.includes(stepName) ? { step: stepIds.indexOf(stepName), stepName } : null),
      }),
  });
  return null;
}
