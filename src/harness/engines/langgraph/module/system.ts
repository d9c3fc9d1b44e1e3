// A user's own LangGraph agent as a system under test: its module and input name it, its lives are
// child processes (one per life, killed with SIGKILL right after the kill point), and it runs a
// task of its own (the input), judged against its own run never killed on what the module reports
// (its effects), the final answer, the graph's final state and the conversation it holds. The run
// never killed must repeat itself (user-module/repeat.ts); with a cassette, a first run records the
// model's replies before anything is judged.

import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CheckName } from '../../../check/checks.js';
import type { RunOutcome, Schedule } from '../../../check/outcome.js';
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
// Its events' kinds (node-start, checkpoint-saved, ...) are known wherever its runs are read.
import '../event-kinds.js';
import type { CassetteMode } from './cassette.js';
import { LANGGRAPH_LIFE_TIMEOUT_VARIABLE } from '../run-spec.js';
import { DEFAULT_EFFECTS_EXPORT, DEFAULT_GRAPH_EXPORT, MODULE_ENV, type LangGraphModuleSpec, type ModuleRunFile } from './spec.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');
const CHILD_MAIN = siblingModule(import.meta.url, 'child-main');

/** What a user's graph is held to: everything killpoint can read of it (it delivers no answer of its own, so "answer twice" is not read). */
export const MODULE_PROMISES: readonly CheckName[] = ['done-twice', 'lost-write', 'different-write', 'shop-differs', 'different-answer', 'invalid-conversation'];

/** The kinds of event a user's graph can be killed right after. */
export const MODULE_KILL_POINTS = ['node-start', 'node-end', 'model-request', 'model-chunk', 'model-reply', 'tool-start', 'tool-result', 'checkpoint-saved', 'writes-saved'] as const;

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

/** The words after `killpoint check` that select this system again. */
function selectorOf(spec: LangGraphModuleSpec): string[] {
  return [
    '--langgraph', spec.moduleArg,
    '--input', spec.inputArg,
    ...(spec.graphExport === DEFAULT_GRAPH_EXPORT ? [] : ['--graph-export', spec.graphExport]),
    ...(spec.effectsExport === DEFAULT_EFFECTS_EXPORT ? [] : ['--effects-export', spec.effectsExport]),
    ...(spec.cassette === undefined ? [] : ['--cassette', spec.cassette.arg]),
  ];
}

/** The system named by its selector's words after `--langgraph` (a corpus entry's strategy), or undefined when the words are not one. */
export function langGraphModuleSystemNamed(name: string): SystemUnderTest | undefined {
  const words = shellWords(name);
  if (words === undefined || words.length === 0) return undefined;
  const [module, ...rest] = words as [string, ...string[]];
  if (!isModulePath(module)) return undefined;
  const options: LangGraphModuleOptions = { module };
  for (let i = 0; i < rest.length; i += 2) {
    const value = rest[i + 1];
    if (value === undefined) return undefined;
    if (rest[i] === '--input') options.inputFile = value;
    else if (rest[i] === '--graph-export') options.graphExport = value;
    else if (rest[i] === '--effects-export') options.effectsExport = value;
    else if (rest[i] === '--cassette') options.cassette = value;
    else return undefined;
  }
  return langGraphModuleSystem(langGraphModuleSpec(options));
}

/** The tier of a user's graph; with a cassette, its lives record the model's replies or replay them. */
function moduleTier(spec: LangGraphModuleSpec, cassetteMode?: CassetteMode): WholeRunTier {
  const runFile: ModuleRunFile = cassetteMode === undefined ? spec : { ...spec, cassetteMode };
  return {
    name: 'langgraph-module',
    prepare: (_scenario, stateDir) => mkdirSync(stateDir, { recursive: true }),
    life: async (_scenario, request) => {
      // The bundled child hands the life the copy of @langchain/core the graph uses (the cassette wraps its chat models).
      const bundled = await userModuleChildBundle({ module: spec.module, childMain: CHILD_MAIN, packages: { chatModels: '@langchain/core/language_models/chat_models', caches: '@langchain/core/caches' } });
      const bundle = bundled ?? (await childBundle({ entry: CHILD_ENTRY, packages: 'external' }));
      const child = { engine: 'LangGraph', bundle, runFileVariable: MODULE_ENV.run, picksVariable: MODULE_ENV.picks, timeoutVariable: LANGGRAPH_LIFE_TIMEOUT_VARIABLE, badInputExit: EXIT_BAD_SETUP, badInputPhrase: 'cannot be checked' };
      return runEngineLife(child, request, `${spec.moduleArg} life ${request.lifeIndex}`, runFile);
    },
    stores: (_scenario, stateDir) => readModuleStores(stateDir, 'graph state'),
  };
}

export function langGraphModuleSystem(spec: LangGraphModuleSpec): SystemUnderTest {
  const tier = moduleTier(spec, spec.cassette === undefined ? undefined : 'replay');
  const selector = selectorOf(spec);
  const name = selector.slice(1).map(shellWord).join(' ');
  return {
    engine: 'langgraph',
    name,
    summary: `the LangGraph graph of ${spec.moduleArg}, each life a process killed with SIGKILL`,
    promised: MODULE_PROMISES,
    killPoints: MODULE_KILL_POINTS,
    selector,
    inProcess: false,
    ownTask: moduleTask(spec.moduleArg, 'the graph'),
    open: (scenario) => {
      let baselineChecked = false;
      // With a cassette that is not there yet, a run never killed records it before anything is judged.
      let recording: Promise<RunOutcome | null> | null = null;
      const record = (): Promise<RunOutcome | null> => {
        if (spec.cassette === undefined || existsSync(spec.cassette.file)) return Promise.resolve(null);
        return (recording ??= runWholeInProcesses(moduleTier(spec, 'record'), scenario, name, { kills: [], interleaving: [] }));
      };
      const run = async (schedule: Schedule): Promise<RunOutcome> => {
        const recorded = await record();
        // A recording run that did not finish wrote no cassette: it is the baseline that did not finish.
        if (recorded !== null && recorded.lives.at(-1)?.end !== 'finished') return recorded;
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
