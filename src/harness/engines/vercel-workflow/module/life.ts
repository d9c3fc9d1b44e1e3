// One life of a user's Vercel workflow, inside its own process: the module (loaded by the bundled
// child, or here through tsx) gives readEffects; the workflow and its steps run from the bundles
// the SDK's builder made of the module, in the local world of the run's state folder
// (../world-run.ts: the one run, started with the input or resumed, its world events, its steps
// one at a time in the order the picks choose). A step's return is a kill point of its own,
// before the world writes its step_completed: the gap, where the retry runs the step again. A run
// that waits on a hook is handed --resume's turns (hook-waits.ts). At the end the life reads back
// what the run did and its output.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resumeHook, resumeWebhook, start } from 'workflow/api';
import type { EmitEvent } from '../../../process/child-main.js';
import { effectRecords } from '../../../user-module/effects.js';
import { effectsReader, moduleOfLife, userCall, type BundledModule } from '../../../user-module/load.js';
import { runAndReadBack } from '../../../user-module/stores.js';
import { SecondDelivery } from '../../../user-module/second-delivery.js';
import { Turns } from '../../../user-module/turns.js';
import { BUNDLE_FILES } from '../run-spec.js';
import { runInWorld, type WorldHandlers } from '../world-run.js';
import { HookWaits } from './hook-waits.js';
import { DATA_DIR_VARIABLE, VW_MODULE_FILES, type VercelModuleContext, type VercelModuleRunFile } from './spec.js';

export interface VercelModuleLifeInputs {
  spec: VercelModuleRunFile;
  /** The module as the bundled child loaded it (or why it failed to load); absent, the life loads it (through tsx). */
  loaded?: BundledModule;
  stateDir: string;
  /** The life's number in its run (0: the life that starts it, whose waits without a turn are bad input). */
  lifeIndex?: number;
  picks: number[];
  emit: EmitEvent;
  onPick: (pick: number, width: number) => void;
  /** Handed the world as soon as it is made: a life in killpoint's process closes it at its kill (module/in-process-life.ts). */
  holdWorld?: (world: { close?(): Promise<void> }) => void;
}

/** The bundles' queue handlers, loaded once per process (a warm child loads them before its life). */
export async function loadModuleBundles(dir: string): Promise<WorldHandlers> {
  const [workflows, steps] = await Promise.all([import(pathToFileURL(join(dir, BUNDLE_FILES.workflows)).href), import(pathToFileURL(join(dir, BUNDLE_FILES.steps)).href)]);
  return { workflows, steps } as WorldHandlers;
}

/** Runs the life to its end; a workflow has no conversation of its own. */
export async function runVercelModuleLife(inputs: VercelModuleLifeInputs): Promise<null> {
  const { spec, stateDir } = inputs;
  const module = await moduleOfLife(inputs.loaded, spec.module, spec.moduleArg);
  const readEffects = effectsReader(module, spec.effectsExport, spec.moduleArg);
  const dataDir = join(stateDir, VW_MODULE_FILES.data);
  mkdirSync(dataDir, { recursive: true });
  // Before the world starts: a resumed run's steps run as soon as it does.
  process.env[DATA_DIR_VARIABLE] = dataDir;
  const ctx: VercelModuleContext = { dataDir };
  const handlers = await loadModuleBundles(spec.bundles);
  const worldDir = join(stateDir, VW_MODULE_FILES.world);
  const turns = new Turns(stateDir, spec.resume, (inputs.lifeIndex ?? 0) === 0);
  const effectsDone = async () => effectRecords(await userCall(() => readEffects(ctx), spec.effectsExport), spec.effectsExport).length;
  const second = new SecondDelivery(turns, inputs.emit);
  const waits = new HookWaits({ worldDir, turns, emit: inputs.emit, effectsDone, resumeHook, resumeWebhook, second });

  await runAndReadBack({
    stateDir,
    readEffects: () => readEffects(ctx),
    effectsExport: spec.effectsExport,
    output: async () => {
      const output = await runInWorld({
        worldDir,
        handlers,
        picks: inputs.picks,
        onPick: inputs.onPick,
        emit: inputs.emit,
        start: async () => (await start({ workflowId: spec.workflowId } as never, [spec.input])).runId,
        stepReturns: true,
        waits,
        ...(inputs.holdWorld === undefined ? {} : { holdWorld: inputs.holdWorld }),
      });
      // The run ended: a turn to hand again that was not yet is handed now (before this life's
      // acknowledgement, which is of its own turns), where it went is said, and the last turn is acknowledged.
      await waits.ended();
      turns.acknowledge();
      turns.mustAllBeHanded();
      return output;
    },
    // The run ended in run_failed: its workflow threw (a saga, after compensating). The SDK keeps
    // the error's message, not its class.
    endedInError: (error) => ((error as Error | undefined)?.name === 'WorkflowRunFailedError' ? `ended in error: ${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message}` : undefined),
  });
  return null;
}
