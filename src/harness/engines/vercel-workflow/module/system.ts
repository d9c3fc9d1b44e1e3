// A user's own Vercel workflow as a system under test: its module and input name it, the SDK's
// builder compiles it once per killpoint process (bundles.ts), each life runs in a local world of
// the run's own, on a thread of killpoint's process cut off at its kill point (in-process-life.ts)
// or, with --tier process, as a child process killed with SIGKILL right after it, and it runs a
// task of its own (the input as the workflow's argument), judged against its own run never killed
// on the effects its module reports and the workflow's output. The run never killed must repeat
// itself. A check explores it by equivalence, as the bundled workflows: the run's folder (its world
// and its steps' data) is copied at each kill point, and one recovery runs per distinct state.

import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckName } from '../../../check/checks.js';
import { RESUME_ACCEPTED, SLEEPING, STEP_RECORDED, TURN_REDELIVERED, WOKE } from '../../../check/event-kinds.js';
import { SystemInputError, type SystemUnderTest } from '../../../engine.js';
import { childBundle } from '../../../process/child-bundle.js';
import { siblingModule } from '../../../process/package-paths.js';
import { runEngineLife } from '../../../process/process-life.js';
import { runWholeInProcesses } from '../../../process/whole-run.js';
import { processLives, type LifeCut, type OutsideState, type ProcessTier, type TierLife, type TierLifeRequest } from '../../../process/process-lives.js';
import { lifeJobOf, type BrokenLife } from '../../../in-process/life-job.js';
import { lifeThreadsFor } from '../../../in-process/life-threads.js';
import { lifeTimeoutFrom } from '../../../life-time-limit.js';
import type { VercelLivesIn } from '../tier.js';
import type { VercelModuleLifeJob } from './in-process-life.js';
import { BUNDLE_VARIABLE, userModuleChildBundle } from '../../../user-module/bundle.js';
import { SERVICE_LEDGER_FILE } from '../../../traffic/service-ledger.js';
import { TRAFFIC_KILL_POINTS } from '../../../traffic/event-kinds.js';
import { BAD_SETUP_PHRASE, EXIT_BAD_SETUP } from '../../../user-module/setup-error.js';
import { readModuleStores } from '../../../user-module/stores.js';
import { moduleOptionsNamed, moduleSystem, tierNamed } from '../../../user-module/system.js';
import { userModuleTarget } from '../../../user-module/target.js';
import { TURNS_FILE } from '../../../user-module/turns.js';
import type { UserModuleOptions } from '../../../engine.js';
import { moduleBundles, type BuiltWorkflows } from '../bundles.js';
import { HOOK_RECEIVED, HOOK_WAITING, RUN_COMPLETED, RUN_CREATED, RUN_STARTED, STEP_CREATED, STEP_RETURNED, STEP_STARTED } from '../event-kinds.js';
import { BUNDLE_FILES, VW_LIFE_TIMEOUT_VARIABLE } from '../run-spec.js';
import { worldDigest } from '../world-digest.js';
import { DEFAULT_VW_EFFECTS_EXPORT, VW_MODULE_ENV, VW_MODULE_FILES, type VercelModuleRunFile, type VercelModuleSpec } from './spec.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');
const CHILD_MAIN = siblingModule(import.meta.url, 'child-main');
const THREAD_MAIN = siblingModule(import.meta.url, 'in-process-life');

/**
 * Where a user's workflow's lives run unless --tier says otherwise: on threads of killpoint's
 * process, proved equal to SIGKILL from scratch at every kill point of the test workflows, both
 * orders of their steps (npm run differential:in-process).
 */
export const DEFAULT_VERCEL_MODULE_TIER: VercelLivesIn = 'in-process';

/** What a user's workflow is held to: everything killpoint can read of it. */
export const VW_MODULE_PROMISES: readonly CheckName[] = ['done-twice', 'lost-write', 'different-write', 'different-answer'];

/** The kinds of event a user's workflow can be killed right after. */
export const VW_MODULE_KILL_POINTS = [...[RUN_CREATED, RUN_STARTED, STEP_CREATED, STEP_STARTED, STEP_RETURNED, STEP_RECORDED, SLEEPING, WOKE, HOOK_WAITING, RESUME_ACCEPTED, TURN_REDELIVERED, HOOK_RECEIVED, RUN_COMPLETED].map((k) => k.kind), ...TRAFFIC_KILL_POINTS];

export interface VercelModuleOptions extends UserModuleOptions {
  workflowExport?: string;
  effectsExport?: string;
}

export function vercelModuleSpec(options: VercelModuleOptions): VercelModuleSpec {
  return {
    ...userModuleTarget(options, '--vercel-workflow', 'a "use workflow" function and readEffects(ctx)'),
    ...(options.workflowExport === undefined ? {} : { workflowExport: options.workflowExport }),
    effectsExport: options.effectsExport ?? DEFAULT_VW_EFFECTS_EXPORT,
  };
}

/** The system named by its selector's words after `--vercel-workflow` (a corpus entry's strategy), or undefined when the words are not one. */
export function vercelModuleSystemNamed(name: string, livesIn?: VercelLivesIn): SystemUnderTest | undefined {
  const named = moduleOptionsNamed(name, ['--workflow-export', '--effects-export', '--tier']);
  if (named === undefined) return undefined;
  const { values, ...target } = named;
  const tier = tierNamed(values, livesIn);
  if (tier === null) return undefined;
  return vercelModuleSystem(vercelModuleSpec({ ...target, workflowExport: values.get('--workflow-export'), effectsExport: values.get('--effects-export') }), tier);
}

/** The workflow to start (its function's name and its id): the one named, or the module's only one; bad input otherwise, naming those it has. */
export function chosenWorkflow(built: BuiltWorkflows, asked: string | undefined, moduleArg: string): BuiltWorkflows[number] {
  const names = built.map((w) => w.name);
  const found = asked === undefined ? (built.length === 1 ? built[0] : undefined) : built.find((w) => w.name === asked);
  if (found !== undefined) return found;
  if (built.length === 0) throw new SystemInputError(`${moduleArg}: holds no "use workflow" function the Workflow SDK's builder found`);
  if (asked === undefined) throw new SystemInputError(`${moduleArg}: holds the workflows ${names.join(', ')}; name the one to start with --workflow-export`);
  throw new SystemInputError(`${moduleArg}: no workflow ${asked} (its workflows: ${names.join(', ')})`);
}

/**
 * The world's folder and the steps' data folder, digested together (their ids renamed alike, see
 * world-digest.ts) beside the folder's other files; a copy of the folder copies them whole.
 */
const WORLD_AND_DATA: OutsideState = {
  nothing: '',
  digest: async (stateDir) => worldDigest(join(stateDir, VW_MODULE_FILES.world), [join(stateDir, VW_MODULE_FILES.data)]),
  copy: async () => undefined,
  release: async () => undefined,
};

/** The SDK stays outside every bundle of the module: the life and the workflow's bundles must share its one copy (the world set, the runs started). */
const SDK_PACKAGES = ['workflow', '@workflow/*', 'ai', '@ai-sdk/*'];

/** The module's workflow to start, from the builder's bundles (built once per module). */
async function workflowOf(spec: VercelModuleSpec): Promise<BuiltWorkflows[number]> {
  const bundles = await moduleBundles(spec.module);
  return chosenWorkflow(JSON.parse(readFileSync(join(bundles, BUNDLE_FILES.ids), 'utf8')) as BuiltWorkflows, spec.workflowExport, spec.moduleArg);
}

/** What every life of the module is run with: the builder's bundles and the workflow's id there. */
async function runFileOf(spec: VercelModuleSpec): Promise<VercelModuleRunFile> {
  const bundles = await moduleBundles(spec.module);
  const { workflowId } = await workflowOf(spec);
  return { ...spec, bundles, workflowId };
}

/** For the in-process tier's own test only: a kill that cuts nothing off, which the comparison with SIGKILL must catch. */
export type VercelModuleVariant = Pick<BrokenLife, 'brokenKill'>;

/**
 * One life on a thread of killpoint's process, started from the module bundled with the thread's
 * main (at least one thread: the SDK's module state is never killpoint's own).
 */
async function lifeInProcess(spec: VercelModuleSpec, runFile: VercelModuleRunFile, request: TierLifeRequest, what: string, variant: VercelModuleVariant): Promise<TierLife> {
  const script = await userModuleChildBundle({ module: spec.module, childMain: THREAD_MAIN, packages: {}, external: SDK_PACKAGES, traffic: spec.traffic !== undefined });
  if (script === null) throw new SystemInputError(`${spec.moduleArg}: its lives in process run on threads started from one bundle of the module, which was not made (${BUNDLE_VARIABLE}=0, or no node_modules folder above the module); check it with --tier process`);
  const job: VercelModuleLifeJob = { ...lifeJobOf(request, what, lifeTimeoutFrom(VW_LIFE_TIMEOUT_VARIABLE, request), variant), runFile };
  return lifeThreadsFor(script, 1)!.run<TierLife, LifeCut>(job, request.onCut);
}

/** One life in a child process killed with SIGKILL. */
async function lifeInAProcess(spec: VercelModuleSpec, runFile: VercelModuleRunFile, request: TierLifeRequest, what: string): Promise<TierLife> {
  const bundled = await userModuleChildBundle({ module: spec.module, childMain: CHILD_MAIN, packages: {}, external: SDK_PACKAGES, traffic: spec.traffic !== undefined });
  const bundle = bundled ?? (await childBundle({ entry: CHILD_ENTRY, packages: 'external' }));
  const child = { engine: 'Vercel Workflow', bundle, runFileVariable: VW_MODULE_ENV.run, picksVariable: VW_MODULE_ENV.picks, timeoutVariable: VW_LIFE_TIMEOUT_VARIABLE, badInputExit: EXIT_BAD_SETUP, badInputPhrase: BAD_SETUP_PHRASE };
  return runEngineLife(child, request, what, runFile);
}

/**
 * The tier of a user's workflow, explored by equivalence (a recovery per distinct state): each
 * life on a thread of killpoint's process cut off at its kill point, a life's kill points cut from
 * one repeat of it; or each life a process killed with SIGKILL.
 */
export function vercelModuleTier(spec: VercelModuleSpec, livesIn: VercelLivesIn, variant: VercelModuleVariant = {}): ProcessTier {
  const inProcess = livesIn === 'in-process';
  // Built and read once for all of the tier's lives.
  let builtRunFile: Promise<VercelModuleRunFile> | undefined;
  return {
    name: `vercel-workflow-module${inProcess ? '-in-process' : ''}`,
    files: [
      { name: VW_MODULE_FILES.world, kind: 'names' },
      { name: VW_MODULE_FILES.data, kind: 'names' },
      { name: SERVICE_LEDGER_FILE, kind: 'bytes' },
      // What was handed to which wait (--resume): a recovery that finds the run still waiting is handed the same turn.
      { name: TURNS_FILE, kind: 'bytes' },
    ],
    outside: WORLD_AND_DATA,
    ...(inProcess ? { cutsInOneLife: true } : {}),
    prepare: (_scenario, stateDir) => mkdirSync(stateDir, { recursive: true }),
    life: async (_scenario, request) => {
      const runFile = await (builtRunFile ??= runFileOf(spec));
      const what = `${spec.moduleArg} life ${request.lifeIndex}`;
      return inProcess ? lifeInProcess(spec, runFile, request, what, variant) : lifeInAProcess(spec, runFile, request, what);
    },
    stores: (_scenario, stateDir) => readModuleStores(stateDir, 'workflow state'),
  };
}

export function vercelModuleSystem(spec: VercelModuleSpec, asked: VercelLivesIn = DEFAULT_VERCEL_MODULE_TIER, variant: VercelModuleVariant = {}): SystemUnderTest {
  const livesIn: VercelLivesIn = asked;
  const tier = vercelModuleTier(spec, livesIn, variant);
  return moduleSystem({
    engine: 'vercel-workflow',
    option: '--vercel-workflow',
    target: spec,
    options: [
      ...(spec.workflowExport === undefined ? [] : [['--workflow-export', spec.workflowExport] as const]),
      ...(spec.effectsExport === DEFAULT_VW_EFFECTS_EXPORT ? [] : [['--effects-export', spec.effectsExport] as const]),
      ...(livesIn === DEFAULT_VERCEL_MODULE_TIER ? [] : [['--tier', livesIn] as const]),
    ],
    what: 'the workflow',
    // Named by its function, as the builder found it: a module is often index.ts.
    taskName: async () => (await workflowOf(spec)).name,
    tier: livesIn,
    summary:
      livesIn === 'in-process'
        ? `the Vercel workflow of ${spec.moduleArg} in a local world, each life on a thread of killpoint's process, cut off at its kill point`
        : `the Vercel workflow of ${spec.moduleArg} in a local world, each life a process killed with SIGKILL`,
    promised: VW_MODULE_PROMISES,
    killPoints: VW_MODULE_KILL_POINTS,
    sessionRuns: (scenario, name) => (schedule, times) => runWholeInProcesses(tier, scenario, name, schedule, times),
    lives: processLives(tier),
  });
}
