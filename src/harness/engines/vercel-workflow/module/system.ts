// A user's own Vercel workflow as a system under test: its module and input name it, the SDK's
// builder compiles it once per killpoint process (bundles.ts), each life is a child process killed
// with SIGKILL right after its kill point, in a local world of the run's own, and it runs a task of
// its own (the input as the workflow's argument), judged against its own run never killed on the
// effects its module reports and the workflow's output. The run never killed must repeat itself.

import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckName } from '../../../check/checks.js';
import { STEP_RECORDED } from '../../../check/event-kinds.js';
import { SystemInputError, type SystemUnderTest } from '../../../engine.js';
import { childBundle } from '../../../process/child-bundle.js';
import { siblingModule } from '../../../process/package-paths.js';
import { runEngineLife } from '../../../process/process-life.js';
import { runWholeInProcesses, type WholeRunTier } from '../../../process/whole-run.js';
import { userModuleChildBundle } from '../../../user-module/bundle.js';
import { BAD_SETUP_PHRASE, EXIT_BAD_SETUP } from '../../../user-module/setup-error.js';
import { readModuleStores } from '../../../user-module/stores.js';
import { moduleOptionsNamed, moduleSystem } from '../../../user-module/system.js';
import { userModuleTarget, type UserModuleOptions } from '../../../user-module/target.js';
import { moduleBundles, type BuiltWorkflows } from '../bundles.js';
import { RUN_COMPLETED, RUN_CREATED, RUN_STARTED, STEP_CREATED, STEP_RETURNED, STEP_STARTED } from '../event-kinds.js';
import { BUNDLE_FILES, VW_LIFE_TIMEOUT_VARIABLE } from '../run-spec.js';
import { DEFAULT_VW_EFFECTS_EXPORT, VW_MODULE_ENV, type VercelModuleRunFile, type VercelModuleSpec } from './spec.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');
const CHILD_MAIN = siblingModule(import.meta.url, 'child-main');

/** What a user's workflow is held to: everything killpoint can read of it. */
export const VW_MODULE_PROMISES: readonly CheckName[] = ['done-twice', 'lost-write', 'different-write', 'different-answer'];

/** The kinds of event a user's workflow can be killed right after. */
export const VW_MODULE_KILL_POINTS = [RUN_CREATED, RUN_STARTED, STEP_CREATED, STEP_STARTED, STEP_RETURNED, STEP_RECORDED, RUN_COMPLETED].map((k) => k.kind);

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
export function vercelModuleSystemNamed(name: string): SystemUnderTest | undefined {
  const named = moduleOptionsNamed(name, ['--workflow-export', '--effects-export']);
  if (named === undefined) return undefined;
  const { values, ...target } = named;
  return vercelModuleSystem(vercelModuleSpec({ ...target, workflowExport: values.get('--workflow-export'), effectsExport: values.get('--effects-export') }));
}

/** The id of the workflow to start: the one named, or the module's only one; bad input otherwise, naming those it has. */
export function chosenWorkflow(built: BuiltWorkflows, asked: string | undefined, moduleArg: string): string {
  const names = built.map((w) => w.name);
  const found = asked === undefined ? (built.length === 1 ? built[0] : undefined) : built.find((w) => w.name === asked);
  if (found !== undefined) return found.workflowId;
  if (built.length === 0) throw new SystemInputError(`${moduleArg}: holds no "use workflow" function the Workflow SDK's builder found`);
  if (asked === undefined) throw new SystemInputError(`${moduleArg}: holds the workflows ${names.join(', ')}; name the one to start with --workflow-export`);
  throw new SystemInputError(`${moduleArg}: no workflow ${asked} (its workflows: ${names.join(', ')})`);
}

function moduleTier(spec: VercelModuleSpec): WholeRunTier {
  return {
    name: 'vercel-workflow-module',
    prepare: (_scenario, stateDir) => mkdirSync(stateDir, { recursive: true }),
    life: async (_scenario, request) => {
      // The SDK stays outside the bundle: the life and the workflow's bundles must share its one copy (the world set, the runs started).
      const [bundles, bundled] = await Promise.all([moduleBundles(spec.module), userModuleChildBundle({ module: spec.module, childMain: CHILD_MAIN, packages: {}, external: ['workflow', '@workflow/*', 'ai', '@ai-sdk/*'] })]);
      const workflowId = chosenWorkflow(JSON.parse(readFileSync(join(bundles, BUNDLE_FILES.ids), 'utf8')) as BuiltWorkflows, spec.workflowExport, spec.moduleArg);
      const bundle = bundled ?? (await childBundle({ entry: CHILD_ENTRY, packages: 'external' }));
      const runFile: VercelModuleRunFile = { ...spec, bundles, workflowId };
      const child = { engine: 'Vercel Workflow', bundle, runFileVariable: VW_MODULE_ENV.run, picksVariable: VW_MODULE_ENV.picks, timeoutVariable: VW_LIFE_TIMEOUT_VARIABLE, badInputExit: EXIT_BAD_SETUP, badInputPhrase: BAD_SETUP_PHRASE };
      return runEngineLife(child, request, `${spec.moduleArg} life ${request.lifeIndex}`, runFile);
    },
    stores: (_scenario, stateDir) => readModuleStores(stateDir, 'workflow state'),
  };
}

export function vercelModuleSystem(spec: VercelModuleSpec): SystemUnderTest {
  const tier = moduleTier(spec);
  return moduleSystem({
    engine: 'vercel-workflow',
    option: '--vercel-workflow',
    target: spec,
    options: [
      ...(spec.workflowExport === undefined ? [] : [['--workflow-export', spec.workflowExport] as const]),
      ...(spec.effectsExport === DEFAULT_VW_EFFECTS_EXPORT ? [] : [['--effects-export', spec.effectsExport] as const]),
    ],
    what: 'the workflow',
    summary: `the Vercel workflow of ${spec.moduleArg} in a local world, each life a process killed with SIGKILL`,
    promised: VW_MODULE_PROMISES,
    killPoints: VW_MODULE_KILL_POINTS,
    sessionRuns: (scenario, name) => (schedule) => runWholeInProcesses(tier, scenario, name, schedule),
  });
}
