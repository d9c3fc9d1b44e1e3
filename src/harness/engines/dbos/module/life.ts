// One life of a user's DBOS workflow, inside its own process: the user's module (loaded by the
// bundled child, or here through tsx) registers its workflow, killpoint observes its steps, sets
// DBOS up on the run's system database with the run's executor and version (the same in every
// life: that is what makes DBOS recover the workflow), starts the workflow on killpoint's queue
// unless it exists already, waits for its recorded output, and reads back what the run did.
//
// Events: workflow-started (its status row committed), each step's step-start and step-return
// (steps.ts), step-recorded once DBOS has committed a step's output, workflow-recorded once the
// workflow's output is recorded. A step DBOS finds recorded does not run and has no events.
// Where the workflow waits in DBOS.recv, the life hands it --resume's turn (waits.ts): recv and
// resume, named by the wait. A DBOS.sleep ends on killpoint's clock (sleeps.ts): sleep and woke.
//
// In killpoint's own process (the in-process tier, its fence given), DBOS is held by the fence
// (../held-dbos.ts) and shut down with its registrations cleared after each life, so each life's
// createWorkflow registers the workflow anew, as each process's does.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSExecutor } from '@dbos-inc/dbos-sdk/internal/dbos-executor';
import { getFunctionRegistration } from '@dbos-inc/dbos-sdk/internal/decorators';
import { DBOS_FUNCNAME_SLEEP, SystemDatabase } from '@dbos-inc/dbos-sdk/internal/system_database';
import { DBOSPortableJSON } from '@dbos-inc/dbos-sdk/internal/serialization';
import { effectRecords } from '../../../user-module/effects.js';
import { SecondDelivery } from '../../../user-module/second-delivery.js';
import { Turns } from '../../../user-module/turns.js';
import { effectsReader, exportedFunction, moduleOfLife, userCall, type BundledModule } from '../../../user-module/load.js';
import { UserModuleSetupError } from '../../../user-module/setup-error.js';
import { runAndReadBack } from '../../../user-module/stores.js';
import type { ModuleLifeInputs } from '../../../user-module/child-main.js';
import { BatchGate } from '../../../interleaving.js';
import { installCommitHooks } from '../hooks.js';
import { dbosSettings } from '../life.js';
import { QUEUE_NAME } from '../run-spec.js';
import { dbosHeldBy } from '../held-dbos.js';
import type { LifeFence } from '../../../in-process/fence.js';
import { DBOS_MODULE_FILES, type DbosModuleContext, type DbosModuleRunFile, type DbosModuleSpec } from './spec.js';
import { observeSteps, type StepPackages } from './steps.js';
import { deliverTurns, observeRecvs, RecvWaits } from './waits.js';
import { sleepOnLifeClock } from './sleeps.js';
// The kinds this life emits (step-start, step-return), known where they are labelled.
import '../event-kinds.js';

/** How often a life asks the database whether the workflow's output is recorded. */
const RESULT_POLLING_MS = 10;

/** What every module life is given (the module as the bundled child loaded it, or absent: the life loads it through tsx), and in process its fence. */
export interface DbosModuleLifeInputs extends ModuleLifeInputs<DbosModuleRunFile> {
  /** In killpoint's own process: the life's fence, and its name in errors. */
  inProcess?: { fence: LifeFence; what: string };
}

type Workflow = (input: unknown) => Promise<unknown>;

/** Runs the life to its end; a workflow has no conversation of its own. */
export async function runDbosModuleLife(inputs: DbosModuleLifeInputs): Promise<null> {
  const { spec, stateDir, emit } = inputs;
  const module = await moduleOfLife(inputs.loaded, spec.module, spec.moduleArg);
  const createWorkflow = exportedFunction(module, spec.workflowExport, spec.moduleArg);
  const readEffects = effectsReader(module, spec.effectsExport, spec.moduleArg);
  const run = spec.run;
  const dataDir = join(stateDir, DBOS_MODULE_FILES.data);
  mkdirSync(dataDir, { recursive: true });
  const ctx: DbosModuleContext = { dataDir, workflowId: run.runKey };

  const gate = new BatchGate(inputs.picks, inputs.onPick);
  const packages: StepPackages = { DBOSExecutor: DBOSExecutor as never, getFunctionRegistration: getFunctionRegistration as never, stepId: () => DBOS.stepID, currentExecutor: () => DBOSExecutor.globalInstance };
  const steps = observeSteps(packages, gate, emit);
  const waits = new RecvWaits();
  observeRecvs({ SystemDatabase: SystemDatabase as never, currentSystemDatabase: () => DBOSExecutor.globalInstance?.systemDatabase }, waits);
  sleepOnLifeClock({ SystemDatabase: SystemDatabase as never, currentSystemDatabase: () => DBOSExecutor.globalInstance?.systemDatabase, sleepName: DBOS_FUNCNAME_SLEEP, serializer: DBOSPortableJSON }, emit);
  let starting = false;
  installCommitHooks({
    stepCommitted() {
      const recorded = steps.takeRecorded();
      if (recorded !== null) emit({ kind: 'step-recorded', step: recorded.step, stepName: recorded.name });
    },
    workflowInitCommitted() {
      if (!starting) return;
      starting = false;
      emit({ kind: 'workflow-started' });
    },
  });

  // In killpoint's process, once the last life's DBOS is shut down: a workflow registers only then.
  const held = inputs.inProcess === undefined ? undefined : await dbosHeldBy(inputs.inProcess.fence, { what: inputs.inProcess.what, databaseUrl: spec.databaseUrl, backend: spec.backend });
  const workflow = (await userCall(() => createWorkflow(ctx), spec.workflowExport)) as Workflow;
  if (typeof workflow !== 'function') throw new UserModuleSetupError(`${spec.workflowExport}(ctx) returned ${workflow === null ? 'null' : typeof workflow}: expected the workflow function DBOS.registerWorkflow returned`);
  if (inputs.inProcess !== undefined) registeredAnew(workflow, spec.workflowExport);

  DBOS.setConfig(dbosSettings({ config: { backend: spec.backend, newExecutorEachLife: false } as never, databaseUrl: spec.databaseUrl, run, lifeIndex: inputs.lifeIndex, ...(held === undefined ? {} : { inProcess: held }) }));
  await DBOS.launch();
  let handle;
  if ((await DBOS.getWorkflowStatus(run.workflowId)) === null) {
    starting = true;
    handle = await startWorkflow(workflow, run.workflowId, spec);
  } else {
    handle = DBOS.retrieveWorkflow(run.workflowId);
  }
  const turns = new Turns(stateDir, spec.resume, inputs.lifeIndex === 0);
  const effectsDone = async () => effectRecords(await userCall(() => readEffects(ctx), spec.effectsExport), spec.effectsExport).length;
  const second = new SecondDelivery(turns, emit);
  // Outside the workflow (this function's own context): its sends are the outside world's.
  const delivering = deliverTurns({ waits, turns, second, workflowId: run.workflowId, emit, effectsDone, send: (to, message, topic, key) => DBOS.send(to, message, topic, key) });
  await runAndReadBack({
    stateDir,
    readEffects: () => readEffects(ctx),
    effectsExport: spec.effectsExport,
    output: async () => {
      const output = await Promise.race([handle.getResult({ pollingIntervalMs: RESULT_POLLING_MS }), delivering]);
      // The workflow ended: its last turn is acknowledged, and a second delivery no recv took was ignored.
      turns.acknowledge();
      await second.ended();
      return output;
    },
    recorded: () => emit({ kind: 'workflow-recorded' }),
    endedInError: (error) => recordedError(run.workflowId, error),
  });
  turns.mustAllBeHanded();
  return null;
}

/**
 * The workflow's name as DBOS registered it (the name it was given, else its function's): what a
 * report names the task by (user-module/task-name.ts). Read in a process of its own: making the
 * workflow registers it.
 */
export async function dbosWorkflowName({ spec, loaded, dataDir }: { spec: DbosModuleSpec; loaded?: BundledModule; dataDir: string }): Promise<string> {
  const module = await moduleOfLife(loaded, spec.module, spec.moduleArg);
  const createWorkflow = exportedFunction(module, spec.workflowExport, spec.moduleArg);
  const ctx: DbosModuleContext = { dataDir, workflowId: 'killpoint-task-name' };
  const workflow = (await userCall(() => createWorkflow(ctx), spec.workflowExport)) as Workflow;
  const name = (getFunctionRegistration(workflow as never) as { name?: string } | undefined)?.name ?? workflow?.name;
  if (typeof name !== 'string' || name === '') throw new UserModuleSetupError(`${spec.workflowExport}(ctx) returned a workflow with no name`);
  return name;
}

/**
 * The error the workflow ended in, as DBOS recorded it (a saga that throws after compensating): the
 * run's outcome, named by its class and message; undefined for any other error (a crash).
 */
async function recordedError(workflowId: string, error: unknown): Promise<string | undefined> {
  const status = await DBOS.getWorkflowStatus(workflowId).catch(() => null);
  if (status?.status !== 'ERROR') return undefined;
  return `ended in error: ${(error as Error).name}: ${(error as Error).message}`;
}

/** The workflows earlier lives in this process were given. */
const workflowsGiven = new WeakSet<Workflow>();

/**
 * In one process, DBOS's registrations are cleared between lives: a workflow registered when the
 * module loaded (and handed out again by createWorkflow) is registered no more after the first
 * life, and DBOS could not recover it. Named as the user's set-up.
 */
function registeredAnew(workflow: Workflow, workflowExport: string): void {
  if (workflowsGiven.has(workflow)) {
    throw new UserModuleSetupError(`${workflowExport}(ctx) returned the same workflow function as in an earlier life: register the workflow inside ${workflowExport} (each life in killpoint's process registers it anew, as DBOS's registrations are cleared between lives), or check it with --tier process`);
  }
  workflowsGiven.add(workflow);
}

/** Starts the workflow on killpoint's queue; one DBOS does not know is the user's set-up, named. */
async function startWorkflow(workflow: Workflow, workflowId: string, spec: DbosModuleRunFile) {
  try {
    return await DBOS.startWorkflow(workflow, { workflowID: workflowId, queueName: QUEUE_NAME })(spec.input);
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (/not registered|registerWorkflow/i.test(message)) throw new UserModuleSetupError(`${spec.workflowExport}(ctx) returned a function DBOS cannot start (${message.split('\n')[0]}): return what DBOS.registerWorkflow returned`);
    throw error;
  }
}
