// A user's own LangGraph agent as a system under test: its module and input name it, its lives run
// in killpoint's process cut off from their stores at the kill point (on threads of lives) or, with
// --tier process, as child processes killed with SIGKILL right after it, and it runs a task of its
// own (the input), judged against its own run never killed on what the module reports (its
// effects), the final answer, the graph's final state and the conversation it holds. A check
// explores it by equivalence: the run's folder (its checkpoints and the agent's data folder) is
// copied at each kill point, and one recovery runs per distinct state. The run never killed must
// repeat itself (user-module/repeat.ts); with a cassette, a first run records the model's replies
// before anything is judged.

import type { LifeTimes } from '../../../life-time-limit.js';
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CheckName } from '../../../check/checks.js';
import type { RunOutcome } from '../../../check/outcome.js';
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
import type { CassetteMode } from './cassette.js';
import { LANGGRAPH_LIFE_TIMEOUT_VARIABLE } from '../run-spec.js';
import { LANGGRAPH_MODULE_NEEDS } from '../config.js';
import { DEFAULT_LANGGRAPH_TIER, type LangGraphLivesIn } from '../run.js';
import { DEFAULT_EFFECTS_EXPORT, DEFAULT_GRAPH_EXPORT, MODULE_ENV, MODULE_STATE_FILES, type LangGraphModuleSpec, type ModuleRunFile } from './spec.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');
const CHILD_MAIN = siblingModule(import.meta.url, 'child-main');
const LIFE_MODULE = siblingModule(import.meta.url, 'life');
const THREAD_MAIN = siblingModule(import.meta.url, 'in-process-thread');
/** The packages of the user's own the life is handed with the module (the cassette wraps its chat models; a wait is resumed with its Command). */
const USER_PACKAGES = { chatModels: '@langchain/core/language_models/chat_models', caches: '@langchain/core/caches', langgraph: '@langchain/langgraph' };


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
  const bundle = await userModuleChildBundle({ module: spec.module, childMain: THREAD_MAIN, packages: USER_PACKAGES });
  return bundle === null ? null : lifeThreadsFor(bundle);
}

/** What a user's graph is held to: everything killpoint can read of it (it delivers no answer of its own, so "answer twice" is not read). */
export const MODULE_PROMISES: readonly CheckName[] = ['done-twice', 'lost-write', 'different-write', 'shop-differs', 'different-answer', 'invalid-conversation'];

/** The kinds of event a user's graph can be killed right after. */
export const MODULE_KILL_POINTS = ['node-start', 'node-end', 'model-request', 'model-chunk', 'model-reply', 'tool-start', 'tool-result', 'checkpoint-saved', 'writes-saved', 'interrupt', 'resume'] as const;

/** How a user names the graph's module, its input and its exports, as the command line does. */
export interface LangGraphModuleOptions extends UserModuleOptions {
  graphExport?: string;
  effectsExport?: string;
  /** A file of recorded model replies: recorded by the first run never killed when missing, replayed in every life when present. */
  cassette?: string;
}

/** The run's spec from what the user gave, with every mistake named (bad input). */
export function langGraphModuleSpec(options: LangGraphModuleOptions): LangGraphModuleSpec {
  return {
    ...userModuleTarget(options, '--langgraph', 'createGraph(ctx)'),
    graphExport: options.graphExport ?? DEFAULT_GRAPH_EXPORT,
    effectsExport: options.effectsExport ?? DEFAULT_EFFECTS_EXPORT,
    ...(options.cassette === undefined ? {} : { cassette: { file: resolve(options.cassette), arg: options.cassette } }),
  };
}

/** The system named by its selector's words after `--langgraph` (a corpus entry's strategy), or undefined when the words are not one. */
export function langGraphModuleSystemNamed(name: string, livesIn?: LangGraphLivesIn): SystemUnderTest | undefined {
  const named = moduleOptionsNamed(name, ['--graph-export', '--effects-export', '--cassette', '--tier']);
  if (named === undefined) return undefined;
  const { values, ...target } = named;
  const tier = tierNamed(values, livesIn);
  if (tier === null) return undefined;
  return langGraphModuleSystem(langGraphModuleSpec({ ...target, graphExport: values.get('--graph-export'), effectsExport: values.get('--effects-export'), cassette: values.get('--cassette') }), tier);
}

/**
 * The tier of a user's graph, explored by equivalence (a recovery per distinct state): what a life
 * reads back is its folder, LangGraph's checkpoints (its ids and times renamed by order, as for the
 * bundled graphs) and the agent's own data folder (its databases by their rows, its other files by
 * their bytes, its ids renamed alike). In process, a life's kill points are cut from one repeat of
 * it. With a cassette, its lives record the model's replies or replay them.
 */
function moduleTier(spec: LangGraphModuleSpec, livesIn: LangGraphLivesIn, cassetteMode?: CassetteMode, variant: DataFolderVariant = {}): ProcessTier {
  const runFile: ModuleRunFile = cassetteMode === undefined ? spec : { ...spec, cassetteMode };
  const inProcess = livesIn === 'in-process';
  return {
    name: `langgraph-module${inProcess ? '-in-process' : ''}`,
    files: [
      { name: MODULE_STATE_FILES.checkpoints, kind: 'sqlite' },
      dataFolderFile(MODULE_STATE_FILES.data, variant),
      { name: TURNS_FILE, kind: 'bytes' },
    ],
    canonical: renameUuidsAndTimes,
    ...(inProcess ? { cutsInOneLife: true } : {}),
    needs: LANGGRAPH_MODULE_NEEDS,
    prepare: (_scenario, stateDir) => mkdirSync(stateDir, { recursive: true }),
    life: async (_scenario, request) => {
      if (inProcess) {
        const job: ModuleLifeJob = { ...lifeJobOf(request, `${spec.moduleArg} life ${request.lifeIndex}`, lifeTimeoutFrom(LANGGRAPH_LIFE_TIMEOUT_VARIABLE, request)), runFile };
        const threads = await moduleLifeThreads(spec);
        if (threads !== null) return threads.run<TierLife, LifeCut>(job, request.onCut);
        const { life, loaded } = await inProcessLifeOf(spec);
        return runInProcessLife(moduleInProcessLife(job, { runModuleLife: life.runModuleLife, ...(loaded === undefined ? {} : { loaded }) }), request.onCut);
      }
      // The bundled child hands the life the copy of @langchain/core the graph uses (the cassette wraps its chat models).
      const bundled = await userModuleChildBundle({ module: spec.module, childMain: CHILD_MAIN, packages: USER_PACKAGES });
      const bundle = bundled ?? (await childBundle({ entry: CHILD_ENTRY, packages: 'external' }));
      const child = { engine: 'LangGraph', bundle, runFileVariable: MODULE_ENV.run, picksVariable: MODULE_ENV.picks, timeoutVariable: LANGGRAPH_LIFE_TIMEOUT_VARIABLE, badInputExit: EXIT_BAD_SETUP, badInputPhrase: BAD_SETUP_PHRASE };
      return runEngineLife(child, request, `${spec.moduleArg} life ${request.lifeIndex}`, runFile);
    },
    stores: (_scenario, stateDir) => readModuleStores(stateDir, 'graph state'),
  };
}

export function langGraphModuleSystem(spec: LangGraphModuleSpec, asked: LangGraphLivesIn = DEFAULT_LANGGRAPH_TIER, variant: DataFolderVariant = {}): SystemUnderTest {
  // A cassette installs itself in the graph's copy of LangChain for the whole process (its cache):
  // lives that record and lives that replay cannot share one process, so a cassette's lives are processes.
  const livesIn: LangGraphLivesIn = spec.cassette === undefined ? asked : 'process';
  const tier = moduleTier(spec, livesIn, spec.cassette === undefined ? undefined : 'replay', variant);
  return moduleSystem({
    engine: 'langgraph',
    option: '--langgraph',
    target: spec,
    options: [
      ...(spec.graphExport === DEFAULT_GRAPH_EXPORT ? [] : [['--graph-export', spec.graphExport] as const]),
      ...(spec.effectsExport === DEFAULT_EFFECTS_EXPORT ? [] : [['--effects-export', spec.effectsExport] as const]),
      ...(spec.cassette === undefined ? [] : [['--cassette', spec.cassette.arg] as const]),
      ...(livesIn === DEFAULT_LANGGRAPH_TIER || spec.cassette !== undefined ? [] : [['--tier', livesIn] as const]),
    ],
    what: 'the graph',
    tier: livesIn,
    summary: livesIn === 'in-process' ? `the LangGraph graph of ${spec.moduleArg}, each life run in process and cut off from its stores at its kill point` : `the LangGraph graph of ${spec.moduleArg}, each life a process killed with SIGKILL`,
    promised: MODULE_PROMISES,
    killPoints: MODULE_KILL_POINTS,
    lives: processLives(tier),
    sessionRuns: (scenario, name) => {
      // With a cassette that is not there yet, a run never killed records it before anything is judged.
      let recording: Promise<RunOutcome | null> | null = null;
      const record = (times?: LifeTimes): Promise<RunOutcome | null> => {
        if (spec.cassette === undefined || existsSync(spec.cassette.file)) return Promise.resolve(null);
        return (recording ??= runWholeInProcesses(moduleTier(spec, livesIn, 'record'), scenario, name, { kills: [], interleaving: [] }, times));
      };
      return async (schedule, times) => {
        const recorded = await record(times);
        // A recording run that did not finish wrote no cassette: it is the baseline that did not finish.
        if (recorded !== null && recorded.lives.at(-1)?.end !== 'finished') return recorded;
        return runWholeInProcesses(tier, scenario, name, schedule, times);
      };
    },
  });
}
