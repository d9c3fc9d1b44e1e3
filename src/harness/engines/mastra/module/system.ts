// A user's own Mastra workflow as a system under test: its module and input name it, each life is a
// child process killed with SIGKILL right after its kill point, on storage in the run's folder, and
// it runs a task of its own (the input as the workflow's input), judged against its own run never
// killed on the effects its module reports and the run's result. A check explores it by
// equivalence: the run's folder (Mastra's storage and the steps' data folder) is copied at each
// kill point, and one recovery runs per distinct state. The run never killed must repeat itself.

import { mkdirSync } from 'node:fs';
import type { CheckName } from '../../../check/checks.js';
import { STEP_RECORDED } from '../../../check/event-kinds.js';
import { SystemInputError, type SystemUnderTest, type UserModuleOptions } from '../../../engine.js';
import { childBundle } from '../../../process/child-bundle.js';
import { siblingModule } from '../../../process/package-paths.js';
import { runEngineLife } from '../../../process/process-life.js';
import { processLives, type ProcessTier } from '../../../process/process-lives.js';
import { runWholeInProcesses } from '../../../process/whole-run.js';
import { userModuleChildBundle } from '../../../user-module/bundle.js';
import { dataFolderFile } from '../../../user-module/data-folder.js';
import { BAD_SETUP_PHRASE, EXIT_BAD_SETUP } from '../../../user-module/setup-error.js';
import { readModuleStores } from '../../../user-module/stores.js';
import { moduleOptionsNamed, moduleSystem } from '../../../user-module/system.js';
import { userModuleTarget } from '../../../user-module/target.js';
import { dropMastraTimes } from '../canonical.js';
import { MASTRA_NEEDS } from '../config.js';
import { EXECUTE_RETURN, EXECUTE_START, SNAPSHOT_PERSISTED } from '../event-kinds.js';
import { requireMastraNode } from '../node-version.js';
import { MASTRA_LIFE_TIMEOUT_VARIABLE } from '../run-spec.js';
import { DEFAULT_MASTRA_EFFECTS_EXPORT, DEFAULT_MASTRA_WORKFLOW_EXPORT, MASTRA_MODULE_ENV, MASTRA_MODULE_FILES, type MastraModuleSpec } from './spec.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');
const CHILD_MAIN = siblingModule(import.meta.url, 'child-main');
/** Mastra stays outside the bundle: the module and killpoint must share its one copy, and libSQL is a native client. */
const EXTERNAL = ['@mastra/*', '@libsql/*', 'libsql'];

/** What a user's workflow is held to: everything killpoint can read of it. */
export const MASTRA_MODULE_PROMISES: readonly CheckName[] = ['done-twice', 'lost-write', 'different-write', 'different-answer'];

/** The kinds of event a user's workflow can be killed right after. */
export const MASTRA_MODULE_KILL_POINTS = [EXECUTE_START, EXECUTE_RETURN, STEP_RECORDED, SNAPSHOT_PERSISTED].map((k) => k.kind);

export interface MastraModuleOptions extends UserModuleOptions {
  workflowExport?: string;
  effectsExport?: string;
}

export function mastraModuleSpec(options: MastraModuleOptions): MastraModuleSpec {
  requireMastraNode();
  // A corpus entry's words read back reach here without the command line's refusal (module-engine.ts).
  if (options.cassette !== undefined) throw new SystemInputError('--cassette: killpoint does not play the traffic of a Mastra workflow yet');
  return {
    ...userModuleTarget(options, '--mastra', 'createWorkflow(ctx)'),
    workflowExport: options.workflowExport ?? DEFAULT_MASTRA_WORKFLOW_EXPORT,
    effectsExport: options.effectsExport ?? DEFAULT_MASTRA_EFFECTS_EXPORT,
  };
}

/** The system named by its selector's words after `--mastra` (a corpus entry's strategy), or undefined when the words are not one. */
export function mastraModuleSystemNamed(name: string): SystemUnderTest | undefined {
  const named = moduleOptionsNamed(name, ['--workflow-export', '--effects-export']);
  if (named === undefined) return undefined;
  const { values, ...target } = named;
  return mastraModuleSystem(mastraModuleSpec({ ...target, workflowExport: values.get('--workflow-export'), effectsExport: values.get('--effects-export') }));
}

function moduleTier(spec: MastraModuleSpec): ProcessTier {
  return {
    name: 'mastra-module',
    files: [
      { name: MASTRA_MODULE_FILES.storage, kind: 'sqlite' },
      dataFolderFile(MASTRA_MODULE_FILES.data),
    ],
    canonical: dropMastraTimes,
    needs: MASTRA_NEEDS,
    prepare: (_scenario, stateDir) => mkdirSync(stateDir, { recursive: true }),
    life: async (_scenario, request) => {
      const bundled = await userModuleChildBundle({ module: spec.module, childMain: CHILD_MAIN, packages: {}, external: EXTERNAL });
      const bundle = bundled ?? (await childBundle({ entry: CHILD_ENTRY, packages: 'external' }));
      const child = { engine: 'Mastra', bundle, runFileVariable: MASTRA_MODULE_ENV.run, picksVariable: MASTRA_MODULE_ENV.picks, timeoutVariable: MASTRA_LIFE_TIMEOUT_VARIABLE, badInputExit: EXIT_BAD_SETUP, badInputPhrase: BAD_SETUP_PHRASE };
      return runEngineLife(child, request, `${spec.moduleArg} life ${request.lifeIndex}`, spec);
    },
    stores: (_scenario, stateDir) => readModuleStores(stateDir, 'workflow state'),
  };
}

export function mastraModuleSystem(spec: MastraModuleSpec): SystemUnderTest {
  const tier = moduleTier(spec);
  return moduleSystem({
    engine: 'mastra',
    option: '--mastra',
    target: spec,
    options: [
      ...(spec.workflowExport === DEFAULT_MASTRA_WORKFLOW_EXPORT ? [] : [['--workflow-export', spec.workflowExport] as const]),
      ...(spec.effectsExport === DEFAULT_MASTRA_EFFECTS_EXPORT ? [] : [['--effects-export', spec.effectsExport] as const]),
    ],
    what: 'the workflow',
    summary: `the Mastra workflow of ${spec.moduleArg} on libSQL, each life a process killed with SIGKILL`,
    promised: MASTRA_MODULE_PROMISES,
    killPoints: MASTRA_MODULE_KILL_POINTS,
    sessionRuns: (scenario, name) => (schedule, times) => runWholeInProcesses(tier, scenario, name, schedule, times),
    lives: processLives(tier),
  });
}
