// A user's own Restate service as a system under test: its module and input name it, each life is
// the service on an endpoint of killpoint's own process torn down right after its kill point, as
// the bundled agent's lives are (../in-process-life.ts), or (--tier process) the service's process
// killed with SIGKILL there, on a private restate-server that the session starts (and stops) as for
// the bundled agent, and it runs a task of its own (the input as the handler's argument), judged
// against its own run never killed on the effects its module reports and the handler's result.
// The run never killed must repeat itself. As for the bundled agent, the invocation's journal
// cannot be copied, so every schedule runs from scratch.

import { mkdirSync } from 'node:fs';
import type { CheckName } from '../../../check/checks.js';
import type { Schedule } from '../../../check/outcome.js';
import { RESUME_ACCEPTED, SLEEPING, STEP_RECORDED, TURN_REDELIVERED, WOKE } from '../../../check/event-kinds.js';
import type { SystemUnderTest } from '../../../engine.js';
import { childBundle } from '../../../process/child-bundle.js';
import { siblingModule } from '../../../process/package-paths.js';
import { runEngineLife } from '../../../process/process-life.js';
import type { WholeRunTier } from '../../../process/whole-run.js';
import { userModuleChildBundle } from '../../../user-module/bundle.js';
import { TRAFFIC_KILL_POINTS } from '../../../traffic/event-kinds.js';
import { BAD_SETUP_PHRASE, EXIT_BAD_SETUP } from '../../../user-module/setup-error.js';
import { readModuleStores } from '../../../user-module/stores.js';
import { moduleOptionsNamed, moduleSystem, tierNamed } from '../../../user-module/system.js';
import { moduleTask, userModuleTarget } from '../../../user-module/target.js';
import { onceNamed, taskNameFromChild } from '../../../user-module/task-name.js';
import { lifeWithTraffic } from '../../../user-module/traffic-life.js';
import { withSeededRandomness } from '../../../user-module/seeded-randomness.js';
import type { UserModuleOptions } from '../../../engine.js';
import { AWAKEABLE_WAITING, INVOCATION_DONE, PROMISE_WAITING, RUN_RETURN, RUN_START } from '../event-kinds.js';
import { RESTATE_LIFE_TIMEOUT_VARIABLE } from '../run-spec.js';
import type { RestateServer } from '../server.js';
import { restateSession } from '../session.js';
import { DEFAULT_RESTATE_TIER, identityOf, type RestateLivesIn } from '../tier.js';
import { moduleLifeHere, runModuleLifeInProcess } from '../../../user-module/in-process.js';
import type { BundledModule } from '../../../user-module/load.js';
import { lifeTimeoutFrom } from '../../../life-time-limit.js';
import type { TierLife, TierLifeRequest } from '../../../process/process-lives.js';
import { DEFAULT_RESTATE_EFFECTS_EXPORT, DEFAULT_SERVICE_EXPORT, RESTATE_MODULE_ENV, type RestateModuleRunFile, type RestateModuleSpec } from './spec.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');
const CHILD_MAIN = siblingModule(import.meta.url, 'child-main');
const LIFE_MODULE = siblingModule(import.meta.url, 'life');
/** The SDK stays outside the bundle: the module and killpoint must share its one copy. */
const EXTERNAL = ['@restatedev/*'];

/** What a user's service is held to: everything killpoint can read of it. */
export const RESTATE_MODULE_PROMISES: readonly CheckName[] = ['done-twice', 'lost-write', 'different-write', 'different-answer'];

/** The kinds of event a user's service can be killed right after. */
export const RESTATE_MODULE_KILL_POINTS = [RUN_START.kind, RUN_RETURN.kind, STEP_RECORDED.kind, AWAKEABLE_WAITING.kind, PROMISE_WAITING.kind, RESUME_ACCEPTED.kind, TURN_REDELIVERED.kind, SLEEPING.kind, WOKE.kind, INVOCATION_DONE.kind, ...TRAFFIC_KILL_POINTS] as const;

export interface RestateModuleOptions extends UserModuleOptions {
  serviceExport?: string;
  effectsExport?: string;
  handler?: string;
}

export function restateModuleSpec(options: RestateModuleOptions): RestateModuleSpec {
  return {
    ...userModuleTarget(options, '--restate', 'createService(ctx)'),
    serviceExport: options.serviceExport ?? DEFAULT_SERVICE_EXPORT,
    effectsExport: options.effectsExport ?? DEFAULT_RESTATE_EFFECTS_EXPORT,
    ...(options.handler === undefined ? {} : { handler: options.handler }),
  };
}

/** The system named by its selector's words after `--restate` (a corpus entry's strategy), or undefined when the words are not one. */
export function restateModuleSystemNamed(name: string, livesIn?: RestateLivesIn): SystemUnderTest | undefined {
  const named = moduleOptionsNamed(name, ['--service-export', '--effects-export', '--handler', '--tier']);
  if (named === undefined) return undefined;
  const { values, ...target } = named;
  const tier = tierNamed(values, livesIn);
  if (tier === null) return undefined;
  return restateModuleSystem(restateModuleSpec({ ...target, serviceExport: values.get('--service-export'), effectsExport: values.get('--effects-export'), handler: values.get('--handler') }), tier);
}

type ModuleLife = typeof import('./life.js');

/** The endpoint held by a life's fence, loaded when the first in-process life starts (it loads the SDK, and the shim the SDK needs first). */
let endpointModule: Promise<typeof import('../in-process-life.js')> | null = null;

/** One life in killpoint's own process: the service on an endpoint held by the life's fence, in a private copy of the state folder. */
async function lifeInProcess(runFile: RestateModuleRunFile, request: TierLifeRequest, what: string): Promise<TierLife> {
  const { serveThrough } = await (endpointModule ??= import('../in-process-life.js'));
  const { life, loaded } = await moduleLifeHere<ModuleLife, BundledModule>({ module: runFile.module, childMain: LIFE_MODULE, packages: {}, external: EXTERNAL, traffic: runFile.traffic !== undefined }, () => import('./life.js'));
  return runModuleLifeInProcess({
    engine: 'Restate',
    what,
    request,
    timeoutMs: lifeTimeoutFrom(RESTATE_LIFE_TIMEOUT_VARIABLE, request),
    // The endpoint is served in the life's async context, so the handler the server calls runs in it:
    // its randomness seeded and its traffic played as the life's (the ingress and admin API pass through).
    run: ({ emit, onPick }, fence, workDir) =>
      withSeededRandomness(request.lifeIndex, () =>
        lifeWithTraffic(runFile.traffic, { stateDir: workDir, emit, passThrough: [runFile.ingressUrl, runFile.adminUrl] }, () =>
          life.runRestateModuleLife({ spec: runFile, ...(loaded === undefined ? {} : { loaded }), stateDir: workDir, lifeIndex: request.lifeIndex, picks: [...request.picks], emit, onPick, serve: serveThrough(fence) }),
        ),
      ),
  });
}

/** The child process a life runs in: the module bundled with it, or (where it cannot be bundled) loaded by each life through tsx. */
async function childBundleOf(spec: RestateModuleSpec): Promise<string> {
  const bundled = await userModuleChildBundle({ module: spec.module, childMain: CHILD_MAIN, packages: {}, external: EXTERNAL, traffic: spec.traffic !== undefined });
  return bundled ?? (await childBundle({ entry: CHILD_ENTRY, packages: 'external' }));
}

function moduleTier(spec: RestateModuleSpec, server: () => Promise<RestateServer>, livesIn: RestateLivesIn): WholeRunTier {
  return {
    name: livesIn === 'in-process' ? 'restate-module-in-process' : 'restate-module',
    prepare: (_scenario, stateDir) => mkdirSync(stateDir, { recursive: true }),
    life: async (scenario, request) => {
      const [{ ingressUrl, adminUrl }, run] = await Promise.all([server(), identityOf(scenario, request.stateDir)]);
      const runFile: RestateModuleRunFile = { ...spec, ingressUrl, adminUrl, run };
      const what = `${spec.moduleArg} life ${request.lifeIndex}`;
      if (livesIn === 'in-process') return lifeInProcess(runFile, request, what);
      const child = { engine: 'Restate', bundle: await childBundleOf(spec), runFileVariable: RESTATE_MODULE_ENV.run, picksVariable: RESTATE_MODULE_ENV.picks, timeoutVariable: RESTATE_LIFE_TIMEOUT_VARIABLE, badInputExit: EXIT_BAD_SETUP, badInputPhrase: BAD_SETUP_PHRASE };
      return runEngineLife(child, request, what, runFile);
    },
    stores: (_scenario, stateDir) => readModuleStores(stateDir, 'service state'),
  };
}

export function restateModuleSystem(spec: RestateModuleSpec, asked: RestateLivesIn = DEFAULT_RESTATE_TIER): SystemUnderTest {
  const livesIn: RestateLivesIn = asked;
  return moduleSystem({
    engine: 'restate',
    option: '--restate',
    target: spec,
    options: [
      ...(spec.serviceExport === DEFAULT_SERVICE_EXPORT ? [] : [['--service-export', spec.serviceExport] as const]),
      ...(spec.effectsExport === DEFAULT_RESTATE_EFFECTS_EXPORT ? [] : [['--effects-export', spec.effectsExport] as const]),
      ...(spec.handler === undefined ? [] : [['--handler', spec.handler] as const]),
      ...(livesIn === DEFAULT_RESTATE_TIER ? [] : [['--tier', livesIn] as const]),
    ],
    what: 'the service',
    // Named by the handler it invokes, as the module's child reads it: a module is often index.ts.
    taskName: onceNamed(() => taskNameFromChild({ bundle: () => childBundleOf(spec), runFileVariable: RESTATE_MODULE_ENV.run }, spec), moduleTask(spec.moduleArg, '').id),
    tier: livesIn,
    summary:
      livesIn === 'in-process'
        ? `the Restate service of ${spec.moduleArg} on a private restate-server, each life served in process and cut off from the server at its kill point`
        : `the Restate service of ${spec.moduleArg} on a private restate-server, each life its process killed with SIGKILL`,
    promised: RESTATE_MODULE_PROMISES,
    killPoints: RESTATE_MODULE_KILL_POINTS,
    sessionRuns: (scenario, name) => {
      // One server for the session's runs, started with its first life and stopped when it closes.
      const session = restateSession(scenario, name, (server) => moduleTier(spec, server, livesIn));
      return Object.assign(async (schedule: Schedule) => session.run(schedule), { close: async () => session.close() });
    },
  });
}
