// A user's own DBOS workflow as a system under test: its module and input name it, each life runs
// in killpoint's process cut off at its kill point (the in-process tier, as the bundled engine's
// lives) or, with --tier process, is a child process killed with SIGKILL right after it, on the
// system database of the backend (PGlite by default; Postgres with KILLPOINT_POSTGRES_URL), and it runs a task of its own
// (the input as the workflow's argument), judged against its own run never killed on the effects
// its module reports and the workflow's result. A check explores it by equivalence: the run's rows
// and its data folder are copied at each kill point, and one recovery runs per distinct state. The
// run never killed must repeat itself.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckName } from '../../../check/checks.js';
import type { SystemUnderTest } from '../../../engine.js';
import { childBundle } from '../../../process/child-bundle.js';
import { siblingModule } from '../../../process/package-paths.js';
import { runEngineLife } from '../../../process/process-life.js';
import { runWholeInProcesses } from '../../../process/whole-run.js';
import { userModuleChildBundle } from '../../../user-module/bundle.js';
import { BAD_SETUP_PHRASE, EXIT_BAD_SETUP } from '../../../user-module/setup-error.js';
import { dataFolderFile, type DataFolderVariant } from '../../../user-module/data-folder.js';
import { readModuleStores } from '../../../user-module/stores.js';
import { TURNS_FILE } from '../../../user-module/turns.js';
import { SERVICE_LEDGER_FILE } from '../../../traffic/service-ledger.js';
import { TRAFFIC_KILL_POINTS } from '../../../traffic/event-kinds.js';
import { moduleOptionsNamed, moduleSystem, tierNamed } from '../../../user-module/system.js';
import { moduleTask, userModuleTarget } from '../../../user-module/target.js';
import { onceNamed, taskNameFromChild } from '../../../user-module/task-name.js';
import { lifeWithTraffic } from '../../../user-module/traffic-life.js';
import { withSeededRandomness } from '../../../user-module/seeded-randomness.js';
import type { UserModuleOptions } from '../../../engine.js';
import { holdingBackend, POSTGRES_URL_VARIABLE, systemDatabase } from '../backend.js';
import { dbosNeeds, type Backend } from '../config.js';
import { runIdentity } from '../identity.js';
import { inRunsTurn, underRunsNames } from '../run-names.js';
import { DBOS_LIFE_TIMEOUT_VARIABLE } from '../run-spec.js';
import { dbosRowsState, DEFAULT_DBOS_TIER, lifeUrl, type DbosLivesIn } from '../tier.js';
import { moduleLifeHere, runModuleLifeInProcess } from '../../../user-module/in-process.js';
import { lifeTimeoutFrom } from '../../../life-time-limit.js';
import { processLives, type ProcessTier, type TierLife, type TierLifeRequest } from '../../../process/process-lives.js';
// Its events' kinds (step-recorded, workflow-started, ...) are known wherever its runs are read.
import '../event-kinds.js';
import type { BundledModule } from '../../../user-module/load.js';
import { DBOS_MODULE_ENV, DBOS_MODULE_FILES, DEFAULT_DBOS_EFFECTS_EXPORT, DEFAULT_WORKFLOW_EXPORT, type DbosModuleRunFile, type DbosModuleSpec } from './spec.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');
const CHILD_MAIN = siblingModule(import.meta.url, 'child-main');
const LIFE_MODULE = siblingModule(import.meta.url, 'life');
/** DBOS stays outside the bundle: it loads optional packages only where installed, and the module and killpoint must share its one copy. */
const EXTERNAL = ['@dbos-inc/*'];

/** What a user's workflow is held to: everything killpoint can read of it. */
export const DBOS_MODULE_PROMISES: readonly CheckName[] = ['done-twice', 'lost-write', 'different-write', 'different-answer'];

/** The kinds of event a user's workflow can be killed right after. */
export const DBOS_MODULE_KILL_POINTS = ['workflow-started', 'step-start', 'step-return', 'step-recorded', 'recv', 'resume', 'redeliver', 'sleep', 'woke', 'workflow-recorded', ...TRAFFIC_KILL_POINTS] as const;

export interface DbosModuleOptions extends UserModuleOptions {
  workflowExport?: string;
  effectsExport?: string;
}

/** The backend a user's workflow runs on: Postgres when KILLPOINT_POSTGRES_URL names one, else PGlite. */
function backendOf(): Backend {
  const url = process.env[POSTGRES_URL_VARIABLE];
  return url !== undefined && url !== '' ? 'postgres' : 'pglite';
}

export function dbosModuleSpec(options: DbosModuleOptions): DbosModuleSpec {
  return {
    ...userModuleTarget(options, '--dbos', 'createWorkflow(ctx)'),
    workflowExport: options.workflowExport ?? DEFAULT_WORKFLOW_EXPORT,
    effectsExport: options.effectsExport ?? DEFAULT_DBOS_EFFECTS_EXPORT,
    backend: backendOf(),
  };
}

/** The system named by its selector's words after `--dbos` (a corpus entry's strategy), or undefined when the words are not one. */
export function dbosModuleSystemNamed(name: string, livesIn?: DbosLivesIn): SystemUnderTest | undefined {
  const named = moduleOptionsNamed(name, ['--workflow-export', '--effects-export', '--tier']);
  if (named === undefined) return undefined;
  const { values, ...target } = named;
  const tier = tierNamed(values, livesIn);
  if (tier === null) return undefined;
  return dbosModuleSystem(dbosModuleSpec({ ...target, workflowExport: values.get('--workflow-export'), effectsExport: values.get('--effects-export') }), tier);
}

type ModuleLife = typeof import('./life.js');

/** One life in killpoint's own process, DBOS held by its fence (../held-dbos.ts), on a private copy of the state folder. */
async function lifeInProcess(runFile: DbosModuleRunFile, request: TierLifeRequest, what: string): Promise<TierLife> {
  const { life, loaded } = await moduleLifeHere<ModuleLife, BundledModule>({ module: runFile.module, childMain: LIFE_MODULE, packages: {}, external: EXTERNAL, traffic: runFile.traffic !== undefined }, () => import('./life.js'));
  return runModuleLifeInProcess({
    engine: 'DBOS',
    what,
    request,
    timeoutMs: lifeTimeoutFrom(DBOS_LIFE_TIMEOUT_VARIABLE, request),
    // Its randomness seeded and its traffic played as in a process, each in the life's async context:
    // what the life does after its kill point is still its own (seeded-randomness.ts, traffic/life-traffic.ts).
    run: ({ emit, onPick }, fence, workDir) =>
      withSeededRandomness(request.lifeIndex, () =>
        lifeWithTraffic(runFile.traffic, { stateDir: workDir, emit, passThrough: [] }, () =>
          life.runDbosModuleLife({ spec: runFile, ...(loaded === undefined ? {} : { loaded }), stateDir: workDir, lifeIndex: request.lifeIndex, picks: [...request.picks], emit, onPick, inProcess: { fence, what } }),
        ),
      ),
  });
}

/** The child process a life runs in: the module bundled with it, or (where it cannot be bundled) loaded by each life through tsx. */
async function childBundleOf(spec: DbosModuleSpec): Promise<string> {
  const bundled = await userModuleChildBundle({ module: spec.module, childMain: CHILD_MAIN, packages: {}, external: EXTERNAL, traffic: spec.traffic !== undefined });
  return bundled ?? (await childBundle({ entry: CHILD_ENTRY, packages: 'external' }));
}

/**
 * The tier of a user's workflow, explored by equivalence (a recovery per distinct state): a run's
 * state is its folder (its names in the system database, and the workflow's data folder read whole:
 * databases by their rows, other files by their bytes) and its rows in the system database, copied
 * under names of each copy's own as the bundled workflows' are (../tier.ts). Each life runs under
 * the run's own names whichever copy it runs from (../run-names.ts): DBOS.workflowID is the same
 * in every life, so a key made of it and DBOS.stepID names the run and the step, as DBOS advises
 * (ctx.workflowId is the same id).
 */
function moduleTier(spec: DbosModuleSpec, livesIn: DbosLivesIn, variant: DataFolderVariant): ProcessTier {
  return {
    name: `dbos-module${livesIn === 'in-process' ? '-in-process' : ''}`,
    files: [
      { name: DBOS_MODULE_FILES.identity, kind: 'names' },
      dataFolderFile(DBOS_MODULE_FILES.data, variant),
      { name: SERVICE_LEDGER_FILE, kind: 'bytes' },
      // What --resume handed to which wait (user-module/turns.ts): the outside world's memory.
      { name: TURNS_FILE, kind: 'bytes' },
    ],
    outside: dbosRowsState(spec.backend, spec.moduleArg, inRunsTurn),
    needs: dbosNeeds(spec.backend),
    prepare: (scenario, stateDir) => {
      mkdirSync(stateDir, { recursive: true });
      writeFileSync(join(stateDir, DBOS_MODULE_FILES.identity), JSON.stringify(runIdentity(scenario)));
    },
    life: async (_scenario, request) => {
      const what = `${spec.moduleArg} life ${request.lifeIndex}`;
      const bundle = livesIn === 'in-process' ? null : await childBundleOf(spec);
      return underRunsNames(spec.backend, request.stateDir, async (run, state) => {
        // Its connections named by its state, so that the rows are moved back only once a killed life's sessions are gone (Postgres).
        const runFile: DbosModuleRunFile = { ...spec, databaseUrl: lifeUrl(await systemDatabase(spec.backend), state), run };
        if (bundle === null) return lifeInProcess(runFile, request, what);
        const child = { engine: 'DBOS', bundle, runFileVariable: DBOS_MODULE_ENV.run, picksVariable: DBOS_MODULE_ENV.picks, timeoutVariable: DBOS_LIFE_TIMEOUT_VARIABLE, badInputExit: EXIT_BAD_SETUP, badInputPhrase: BAD_SETUP_PHRASE };
        return runEngineLife(child, request, what, runFile);
      });
    },
    stores: (_scenario, stateDir) => readModuleStores(stateDir, 'workflow state'),
  };
}

export function dbosModuleSystem(spec: DbosModuleSpec, asked: DbosLivesIn = DEFAULT_DBOS_TIER, variant: DataFolderVariant = {}): SystemUnderTest {
  const livesIn: DbosLivesIn = asked;
  const tier = moduleTier(spec, livesIn, variant);
  const system = moduleSystem({
    engine: 'dbos',
    option: '--dbos',
    target: spec,
    options: [
      ...(spec.workflowExport === DEFAULT_WORKFLOW_EXPORT ? [] : [['--workflow-export', spec.workflowExport] as const]),
      ...(spec.effectsExport === DEFAULT_DBOS_EFFECTS_EXPORT ? [] : [['--effects-export', spec.effectsExport] as const]),
      ...(livesIn === DEFAULT_DBOS_TIER ? [] : [['--tier', livesIn] as const]),
    ],
    what: 'the workflow',
    // Named by the workflow DBOS registers, as the module's child reads it: a module is often index.ts.
    taskName: onceNamed(() => taskNameFromChild({ bundle: () => childBundleOf(spec), runFileVariable: DBOS_MODULE_ENV.run }, spec), moduleTask(spec.moduleArg, '').id),
    tier: livesIn,
    summary:
      livesIn === 'in-process'
        ? `the DBOS workflow of ${spec.moduleArg} on ${spec.backend}, each life run in process and cut off from the system database at its kill point`
        : `the DBOS workflow of ${spec.moduleArg} on ${spec.backend}, each life a process killed with SIGKILL`,
    promised: DBOS_MODULE_PROMISES,
    killPoints: DBOS_MODULE_KILL_POINTS,
    sessionRuns: (scenario, name) => (schedule, times) => runWholeInProcesses(tier, scenario, name, schedule, times),
    lives: processLives(tier),
  });
  return holdingBackend(system, spec.backend);
}
