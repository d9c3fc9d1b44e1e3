// A user's own DBOS workflow as a system under test: its module and input name it, each life is a
// child process killed with SIGKILL right after its kill point, on the system database of the
// backend (PGlite by default; Postgres with KILLPOINT_POSTGRES_URL), and it runs a task of its own
// (the input as the workflow's argument), judged against its own run never killed on the effects
// its module reports and the workflow's result. The run never killed must repeat itself.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckName } from '../../../check/checks.js';
import type { Schedule } from '../../../check/outcome.js';
import type { SystemUnderTest } from '../../../engine.js';
import { childBundle } from '../../../process/child-bundle.js';
import { siblingModule } from '../../../process/package-paths.js';
import { runEngineLife } from '../../../process/process-life.js';
import { processSession } from '../../../process/process-lives.js';
import { runWholeInProcesses, type WholeRunTier } from '../../../process/whole-run.js';
import { shellWord, shellWords } from '../../../shell-words.js';
import { userModuleChildBundle } from '../../../user-module/bundle.js';
import { mustRepeatItself } from '../../../user-module/repeat.js';
import { EXIT_BAD_SETUP } from '../../../user-module/setup-error.js';
import { readModuleStores } from '../../../user-module/stores.js';
import { isModulePath, moduleTask, userModuleTarget, type UserModuleOptions } from '../../../user-module/target.js';
import { POSTGRES_URL_VARIABLE, systemDatabase } from '../backend.js';
import type { Backend } from '../config.js';
import { runIdentity } from '../identity.js';
import { DBOS_LIFE_TIMEOUT_VARIABLE, type RunIdentity } from '../run-spec.js';
// Its events' kinds (step-recorded, workflow-started, ...) are known wherever its runs are read.
import '../event-kinds.js';
import { DBOS_MODULE_ENV, DBOS_MODULE_FILES, DEFAULT_DBOS_EFFECTS_EXPORT, DEFAULT_WORKFLOW_EXPORT, type DbosModuleRunFile, type DbosModuleSpec } from './spec.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');
const CHILD_MAIN = siblingModule(import.meta.url, 'child-main');

/** What a user's workflow is held to: everything killpoint can read of it. */
export const DBOS_MODULE_PROMISES: readonly CheckName[] = ['done-twice', 'lost-write', 'different-write', 'different-answer'];

/** The kinds of event a user's workflow can be killed right after. */
export const DBOS_MODULE_KILL_POINTS = ['workflow-started', 'step-start', 'step-return', 'step-recorded', 'workflow-recorded'] as const;

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

function selectorOf(spec: DbosModuleSpec): string[] {
  return [
    '--dbos', spec.moduleArg,
    '--input', spec.inputArg,
    ...(spec.workflowExport === DEFAULT_WORKFLOW_EXPORT ? [] : ['--workflow-export', spec.workflowExport]),
    ...(spec.effectsExport === DEFAULT_DBOS_EFFECTS_EXPORT ? [] : ['--effects-export', spec.effectsExport]),
  ];
}

/** The system named by its selector's words after `--dbos` (a corpus entry's strategy), or undefined when the words are not one. */
export function dbosModuleSystemNamed(name: string): SystemUnderTest | undefined {
  const words = shellWords(name);
  if (words === undefined || words.length === 0) return undefined;
  const [module, ...rest] = words as [string, ...string[]];
  if (!isModulePath(module)) return undefined;
  const options: DbosModuleOptions = { module };
  for (let i = 0; i < rest.length; i += 2) {
    const value = rest[i + 1];
    if (value === undefined) return undefined;
    if (rest[i] === '--input') options.inputFile = value;
    else if (rest[i] === '--workflow-export') options.workflowExport = value;
    else if (rest[i] === '--effects-export') options.effectsExport = value;
    else return undefined;
  }
  return dbosModuleSystem(dbosModuleSpec(options));
}

function identityIn(stateDir: string): RunIdentity {
  return JSON.parse(readFileSync(join(stateDir, DBOS_MODULE_FILES.identity), 'utf8')) as RunIdentity;
}

function moduleTier(spec: DbosModuleSpec): WholeRunTier {
  return {
    name: 'dbos-module',
    prepare: (scenario, stateDir) => {
      mkdirSync(stateDir, { recursive: true });
      writeFileSync(join(stateDir, DBOS_MODULE_FILES.identity), JSON.stringify(runIdentity(scenario)));
    },
    life: async (_scenario, request) => {
      // DBOS stays outside the bundle: it loads optional packages only where installed, and the module and killpoint must share its one copy.
      const [databaseUrl, bundled] = await Promise.all([systemDatabase(spec.backend), userModuleChildBundle({ module: spec.module, childMain: CHILD_MAIN, packages: {}, external: ['@dbos-inc/*'] })]);
      const bundle = bundled ?? (await childBundle({ entry: CHILD_ENTRY, packages: 'external' }));
      const runFile: DbosModuleRunFile = { ...spec, databaseUrl, run: identityIn(request.stateDir) };
      const child = { engine: 'DBOS', bundle, runFileVariable: DBOS_MODULE_ENV.run, picksVariable: DBOS_MODULE_ENV.picks, timeoutVariable: DBOS_LIFE_TIMEOUT_VARIABLE, badInputExit: EXIT_BAD_SETUP, badInputPhrase: 'cannot be checked' };
      return runEngineLife(child, request, `${spec.moduleArg} life ${request.lifeIndex}`, runFile);
    },
    stores: (_scenario, stateDir) => readModuleStores(stateDir, 'workflow state'),
  };
}

export function dbosModuleSystem(spec: DbosModuleSpec): SystemUnderTest {
  const tier = moduleTier(spec);
  const selector = selectorOf(spec);
  const name = selector.slice(1).map(shellWord).join(' ');
  return {
    engine: 'dbos',
    name,
    summary: `the DBOS workflow of ${spec.moduleArg} on ${spec.backend}, each life a process killed with SIGKILL`,
    promised: DBOS_MODULE_PROMISES,
    killPoints: DBOS_MODULE_KILL_POINTS,
    selector,
    inProcess: false,
    ownTask: moduleTask(spec.moduleArg, 'the workflow'),
    open: (scenario) => {
      let baselineChecked = false;
      const run = async (schedule: Schedule) => {
        const outcome = await runWholeInProcesses(tier, scenario, name, schedule);
        if (schedule.kills.length > 0 || baselineChecked) return outcome;
        baselineChecked = true;
        mustRepeatItself(spec.moduleArg, outcome, await runWholeInProcesses(tier, scenario, name, schedule));
        return outcome;
      };
      return processSession(scenario, run);
    },
  };
}
