// A user's own DBOS workflow as a system under test: its module and input name it, each life is a
// child process killed with SIGKILL right after its kill point, on the system database of the
// backend (PGlite by default; Postgres with KILLPOINT_POSTGRES_URL), and it runs a task of its own
// (the input as the workflow's argument), judged against its own run never killed on the effects
// its module reports and the workflow's result. The run never killed must repeat itself.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckName } from '../../../check/checks.js';
import type { SystemUnderTest } from '../../../engine.js';
import { childBundle } from '../../../process/child-bundle.js';
import { siblingModule } from '../../../process/package-paths.js';
import { runEngineLife } from '../../../process/process-life.js';
import { runWholeInProcesses, type WholeRunTier } from '../../../process/whole-run.js';
import { userModuleChildBundle } from '../../../user-module/bundle.js';
import { EXIT_BAD_SETUP } from '../../../user-module/setup-error.js';
import { readModuleStores } from '../../../user-module/stores.js';
import { moduleOptionsNamed, moduleSystem } from '../../../user-module/system.js';
import { userModuleTarget, type UserModuleOptions } from '../../../user-module/target.js';
import { holdingBackend, POSTGRES_URL_VARIABLE, systemDatabase } from '../backend.js';
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

/** The system named by its selector's words after `--dbos` (a corpus entry's strategy), or undefined when the words are not one. */
export function dbosModuleSystemNamed(name: string): SystemUnderTest | undefined {
  const named = moduleOptionsNamed(name, ['--workflow-export', '--effects-export']);
  if (named === undefined) return undefined;
  const { values, ...target } = named;
  return dbosModuleSystem(dbosModuleSpec({ ...target, workflowExport: values.get('--workflow-export'), effectsExport: values.get('--effects-export') }));
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
  const system = moduleSystem({
    engine: 'dbos',
    option: '--dbos',
    target: spec,
    options: [
      ...(spec.workflowExport === DEFAULT_WORKFLOW_EXPORT ? [] : [['--workflow-export', spec.workflowExport] as const]),
      ...(spec.effectsExport === DEFAULT_DBOS_EFFECTS_EXPORT ? [] : [['--effects-export', spec.effectsExport] as const]),
    ],
    what: 'the workflow',
    summary: `the DBOS workflow of ${spec.moduleArg} on ${spec.backend}, each life a process killed with SIGKILL`,
    promised: DBOS_MODULE_PROMISES,
    killPoints: DBOS_MODULE_KILL_POINTS,
    sessionRuns: (scenario, name) => (schedule) => runWholeInProcesses(tier, scenario, name, schedule),
  });
  return holdingBackend(system, spec.backend);
}
