// A user's own LangGraph agent as a system under test: its module and input name it, its lives run
// in killpoint's process cut off from their stores at the kill point (on threads of lives) or, with
// --tier process, as child processes killed with SIGKILL right after it, and it runs a task of its
// own (the input), judged against its own run never killed on what the module reports (its
// effects), the final answer, the graph's final state and the conversation it holds. A check
// explores it by equivalence: the run's folder (its checkpoints and the agent's data folder) is
// copied at each kill point, and one recovery runs per distinct state. The run never killed must
// repeat itself (user-module/repeat.ts). With a cassette, the agent's HTTP traffic is played by
// killpoint in every life (user-module/traffic-life.ts), in either tier.

import { mkdirSync } from 'node:fs';
import type { CheckName } from '../../../check/checks.js';
import type { SystemUnderTest } from '../../../engine.js';
import { childBundle } from '../../../process/child-bundle.js';
import { siblingModule } from '../../../process/package-paths.js';
import { runEngineLife } from '../../../process/process-life.js';
import { runWholeInProcesses } from '../../../process/whole-run.js';
import { processLives, type LifeCut, type ProcessTier, type TierLife } from '../../../process/process-lives.js';
import { renameUuidsAndTimes } from '../../../process/state-digest.js';
import { userModuleChildBundle } from '../../../user-module/bundle.js';
import { moduleLifeHere, type ModuleLifeHere } from '../../../user-module/in-process.js';
import { BAD_SETUP_PHRASE, EXIT_BAD_SETUP } from '../../../user-module/setup-error.js';
import { dataFolderFile, type DataFolderVariant } from '../../../user-module/data-folder.js';
import { readModuleStores } from '../../../user-module/stores.js';
import { TURNS_FILE } from '../../../user-module/turns.js';
import { SERVICE_LEDGER_FILE } from '../../../traffic/service-ledger.js';
import { TRAFFIC_KILL_POINTS } from '../../../traffic/event-kinds.js';
import { moduleOptionsNamed, moduleSystem, tierNamed } from '../../../user-module/system.js';
import { userModuleTarget } from '../../../user-module/target.js';
import type { UserModuleOptions } from '../../../engine.js';
import { runInProcessLife } from '../../../in-process/in-process-life.js';
import { lifeThreadCount, lifeThreadsFor, type LifeThreads } from '../../../in-process/life-threads.js';
import { lifeJobOf } from '../../../in-process/life-job.js';
import { moduleInProcessLife, type ModuleLifeJob } from './in-process-job.js';
import { lifeTimeoutFrom } from '../../../life-time-limit.js';
import type { LoadedGraphModule } from './life.js';
// Its events' kinds (node-start, checkpoint-saved, ...) are known wherever its runs are read.
import '../event-kinds.js';
import { LANGGRAPH_LIFE_TIMEOUT_VARIABLE } from '../run-spec.js';
import { LANGGRAPH_MODULE_NEEDS } from '../config.js';
import { DEFAULT_LANGGRAPH_TIER, type LangGraphLivesIn } from '../run.js';
import { DEFAULT_EFFECTS_EXPORT, DEFAULT_GRAPH_EXPORT, MODULE_ENV, MODULE_STATE_FILES, type LangGraphModuleSpec } from './spec.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');
const CHILD_MAIN = siblingModule(import.meta.url, 'child-main');
const LIFE_MODULE = siblingModule(import.meta.url, 'life');
const THREAD_MAIN = siblingModule(import.meta.url, 'in-process-thread');
/** The packages of the user's own the life is handed with the module (a wait is resumed with its Command). */
const USER_PACKAGES = { langgraph: '@langchain/langgraph' };


type ModuleLife = typeof import('./life.js');

/** The user's module and killpoint's side of its life, in this process (user-module/in-process.ts). */
function inProcessLifeOf(spec: LangGraphModuleSpec): Promise<ModuleLifeHere<ModuleLife, LoadedGraphModule>> {
  return moduleLifeHere({ module: spec.module, childMain: LIFE_MODULE, packages: USER_PACKAGES }, () => import('./life.js'));
}

/**
 * The threads a user's graph's in-process lives run on (in-process/life-threads.ts), each started
 * from the module bundled with a thread's main; null when they run on killpoint's own thread
 * (KILLPOINT_LIFE_THREADS=0, or a module that cannot be bundled: a thread has no TypeScript loader).
 */
async function moduleLifeThreads(spec: LangGraphModuleSpec): Promise<LifeThreads | null> {
  if (lifeThreadCount() === 0) return null;
  const bundle = await userModuleChildBundle({ module: spec.module, childMain: THREAD_MAIN, packages: USER_PACKAGES, traffic: spec.traffic !== undefined });
  return bundle === null ? null : lifeThreadsFor(bundle);
}

/** What a user's graph is held to: everything killpoint can read of it (it delivers no answer of its own, so "answer twice" is not read). */
export const MODULE_PROMISES: readonly CheckName[] = ['done-twice', 'lost-write', 'different-write', 'shop-differs', 'different-answer', 'invalid-conversation'];

/** The kinds of event a user's graph can be killed right after. */
export const MODULE_KILL_POINTS = ['node-start', 'node-end', 'model-request', 'model-chunk', 'model-reply', 'tool-start', 'tool-result', 'checkpoint-saved', 'writes-saved', 'interrupt', 'resume', 'message', 'redeliver', ...TRAFFIC_KILL_POINTS] as const;

/** How a user names the graph's module, its input and its exports, as the command line does. */
export interface LangGraphModuleOptions extends UserModuleOptions {
  graphExport?: string;
  effectsExport?: string;
}

/** The run's spec from what the user gave, with every mistake named (bad input). */
export function langGraphModuleSpec(options: LangGraphModuleOptions): LangGraphModuleSpec {
  return {
    ...userModuleTarget(options, '--langgraph', 'createGraph(ctx)'),
    graphExport: options.graphExport ?? DEFAULT_GRAPH_EXPORT,
    effectsExport: options.effectsExport ?? DEFAULT_EFFECTS_EXPORT,
  };
}

/** The system named by its selector's words after `--langgraph` (a corpus entry's strategy), or undefined when the words are not one. */
export function langGraphModuleSystemNamed(name: string, livesIn?: LangGraphLivesIn): SystemUnderTest | undefined {
  const named = moduleOptionsNamed(name, ['--graph-export', '--effects-export', '--tier']);
  if (named === undefined) return undefined;
  const { values, ...target } = named;
  const tier = tierNamed(values, livesIn);
  if (tier === null) return undefined;
  return langGraphModuleSystem(langGraphModuleSpec({ ...target, graphExport: values.get('--graph-export'), effectsExport: values.get('--effects-export') }), tier);
}

/**
 * The tier of a user's graph, explored by equivalence (a recovery per distinct state): what a life
 * reads back is its folder, LangGraph's checkpoints (its ids and times renamed by order, as for the
 * bundled graphs) and the agent's own data folder (its databases by their rows, its other files by
 * their bytes, its ids renamed alike). In process, a life's kill points are cut from one repeat of
 * it. With a cassette, the writes the services committed are in the run's service ledger.
 */
function moduleTier(spec: LangGraphModuleSpec, livesIn: LangGraphLivesIn, variant: DataFolderVariant = {}): ProcessTier {
  const inProcess = livesIn === 'in-process';
  return {
    name: `langgraph-module${inProcess ? '-in-process' : ''}`,
    files: [
      { name: MODULE_STATE_FILES.checkpoints, kind: 'sqlite' },
      dataFolderFile(MODULE_STATE_FILES.data, variant),
      { name: TURNS_FILE, kind: 'bytes' },
      { name: SERVICE_LEDGER_FILE, kind: 'bytes' },
    ],
    canonical: renameUuidsAndTimes,
    ...(inProcess ? { cutsInOneLife: true } : {}),
    needs: LANGGRAPH_MODULE_NEEDS,
    prepare: (_scenario, stateDir) => mkdirSync(stateDir, { recursive: true }),
    life: async (_scenario, request) => {
      if (inProcess) {
        const job: ModuleLifeJob = { ...lifeJobOf(request, `${spec.moduleArg} life ${request.lifeIndex}`, lifeTimeoutFrom(LANGGRAPH_LIFE_TIMEOUT_VARIABLE, request)), runFile: spec };
        const threads = await moduleLifeThreads(spec);
        if (threads !== null) return threads.run<TierLife, LifeCut>(job, request.onCut);
        const { life, loaded } = await inProcessLifeOf(spec);
        return runInProcessLife(moduleInProcessLife(job, { runModuleLife: life.runModuleLife, ...(loaded === undefined ? {} : { loaded }) }), request.onCut);
      }
      // The bundled child hands the life the copy of LangGraph the graph uses (its Command resumes a wait).
      const bundled = await userModuleChildBundle({ module: spec.module, childMain: CHILD_MAIN, packages: USER_PACKAGES, traffic: spec.traffic !== undefined });
      const bundle = bundled ?? (await childBundle({ entry: CHILD_ENTRY, packages: 'external' }));
      const child = { engine: 'LangGraph', bundle, runFileVariable: MODULE_ENV.run, picksVariable: MODULE_ENV.picks, timeoutVariable: LANGGRAPH_LIFE_TIMEOUT_VARIABLE, badInputExit: EXIT_BAD_SETUP, badInputPhrase: BAD_SETUP_PHRASE };
      return runEngineLife(child, request, `${spec.moduleArg} life ${request.lifeIndex}`, spec);
    },
    stores: (_scenario, stateDir) => readModuleStores(stateDir, 'graph state'),
  };
}

export function langGraphModuleSystem(spec: LangGraphModuleSpec, asked: LangGraphLivesIn = DEFAULT_LANGGRAPH_TIER, variant: DataFolderVariant = {}): SystemUnderTest {
  const livesIn: LangGraphLivesIn = asked;
  const tier = moduleTier(spec, livesIn, variant);
  return moduleSystem({
    engine: 'langgraph',
    option: '--langgraph',
    target: spec,
    options: [
      ...(spec.graphExport === DEFAULT_GRAPH_EXPORT ? [] : [['--graph-export', spec.graphExport] as const]),
      ...(spec.effectsExport === DEFAULT_EFFECTS_EXPORT ? [] : [['--effects-export', spec.effectsExport] as const]),
      ...(livesIn === DEFAULT_LANGGRAPH_TIER ? [] : [['--tier', livesIn] as const]),
    ],
    what: 'the graph',
    tier: livesIn,
    summary: livesIn === 'in-process' ? `the LangGraph graph of ${spec.moduleArg}, each life run in process and cut off from its stores at its kill point` : `the LangGraph graph of ${spec.moduleArg}, each life a process killed with SIGKILL`,
    promised: MODULE_PROMISES,
    killPoints: MODULE_KILL_POINTS,
    lives: processLives(tier),
    sessionRuns: (scenario, name) => (schedule, times) => runWholeInProcesses(tier, scenario, name, schedule, times),
  });
}
