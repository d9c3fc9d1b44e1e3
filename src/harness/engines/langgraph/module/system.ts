// A user's own LangGraph agent as a system under test: its module and input name it, its lives are
// child processes (one per life, killed with SIGKILL right after the kill point), and it runs a
// task of its own (the input), judged against its own run never killed on what the module reports
// (its effects), the final answer, the graph's final state and the conversation it holds.
//
// The run never killed is the yardstick, so it must repeat itself: the first one a session runs is
// run twice, and two that differ (an event, an effect, the answer) are bad input, named.

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { CheckName } from '../../../check/checks.js';
import { describeEvent } from '../../../check/event-kinds.js';
import type { RunOutcome, Schedule } from '../../../check/outcome.js';
import { SystemInputError, type SystemUnderTest } from '../../../engine.js';
import { childBundle } from '../../../process/child-bundle.js';
import { siblingModule } from '../../../process/package-paths.js';
import { runEngineLife } from '../../../process/process-life.js';
import { processSession } from '../../../process/process-lives.js';
import { runWholeInProcesses, type WholeRunTier } from '../../../process/whole-run.js';
import type { Scenario } from '../../../../model/scenario.js';
import { shellWord, shellWords } from '../../../shell-words.js';
import { effectsAsWrites } from './effects.js';
// Its events' kinds (node-start, checkpoint-saved, ...) are known wherever its runs are read.
import '../event-kinds.js';
import type { CassetteMode } from './cassette.js';
import { moduleChildBundle } from './bundle.js';
import { DEFAULT_EFFECTS_EXPORT, DEFAULT_GRAPH_EXPORT, EXIT_BAD_SETUP, MODULE_ENV, MODULE_LIFE_TIMEOUT_VARIABLE, MODULE_STATE_FILES, type LangGraphModuleSpec, type ModuleRunFile, type ModuleStores } from './spec.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');

/** What a user's graph is held to: everything killpoint can read of it (it delivers no answer of its own, so "answer twice" is not read). */
export const MODULE_PROMISES: readonly CheckName[] = ['done-twice', 'lost-write', 'different-write', 'shop-differs', 'different-answer', 'invalid-conversation'];

/** The kinds of event a user's graph can be killed right after. */
export const MODULE_KILL_POINTS = ['node-start', 'node-end', 'model-request', 'model-chunk', 'model-reply', 'tool-start', 'tool-result', 'checkpoint-saved', 'writes-saved'] as const;

/** How a user names the module and its input, as the command line does. */
export interface LangGraphModuleOptions {
  /** The module's path (relative to the current folder). */
  module: string;
  /** The input: a JSON file's path (`inputFile`), or the value itself (`input`). */
  inputFile?: string;
  input?: unknown;
  graphExport?: string;
  effectsExport?: string;
  /** A file of recorded model replies: recorded by the first run never killed when missing, replayed in every life when present. */
  cassette?: string;
}

/** The run's spec from what the user gave, with every mistake named (bad input). */
export function langGraphModuleSpec(options: LangGraphModuleOptions): LangGraphModuleSpec {
  if (typeof options.module !== 'string' || options.module === '') throw new SystemInputError('--langgraph: expected the path of the module that exports createGraph(ctx)');
  const module = resolve(options.module);
  if (!existsSync(module)) throw new SystemInputError(`${options.module}: no such module`);
  let input: unknown = options.input;
  let inputArg = options.inputFile ?? '';
  if (options.inputFile !== undefined && isInlineJson(options.inputFile)) {
    try {
      input = JSON.parse(options.inputFile);
    } catch (error) {
      throw new SystemInputError(`--input: the JSON given inline is not JSON (${(error as Error).message})`);
    }
  } else if (options.inputFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.inputFile, 'utf8');
    } catch (error) {
      throw new SystemInputError(`--input ${options.inputFile}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    try {
      input = JSON.parse(text);
    } catch (error) {
      throw new SystemInputError(`--input ${options.inputFile}: not JSON (${(error as Error).message})`);
    }
  } else if (input !== undefined) {
    // Given as a value: a replay command carries it inline.
    try {
      inputArg = JSON.stringify(input);
    } catch (error) {
      throw new SystemInputError(`input: cannot be written as JSON (${(error as Error).message})`);
    }
    if (inputArg === undefined) throw new SystemInputError('input: expected a JSON value (an object, a list, a string, ...)');
  } else {
    throw new SystemInputError('--input: expected a JSON file with the graph\'s input for invoke (or, from code, `input`)');
  }
  return {
    module,
    moduleArg: options.module,
    input,
    inputArg,
    graphExport: options.graphExport ?? DEFAULT_GRAPH_EXPORT,
    effectsExport: options.effectsExport ?? DEFAULT_EFFECTS_EXPORT,
    ...(options.cassette === undefined ? {} : { cassette: { file: resolve(options.cassette), arg: options.cassette } }),
  };
}

/** `--input` takes a file, or the JSON itself when it starts as an object or a list does. */
function isInlineJson(arg: string): boolean {
  return /^\s*[[{]/.test(arg);
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
  if (!/\.[mc]?[jt]sx?$/.test(module) || !existsSync(resolve(module))) return undefined;
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

/** The task a user's graph runs: its own (its input), named after its module. */
export function moduleTask(spec: LangGraphModuleSpec): Scenario {
  return {
    id: basename(spec.moduleArg).replace(/\.[mc]?[jt]sx?$/, ''),
    title: `the graph of ${spec.moduleArg}`,
    customerMessage: '',
    shop: { customers: [], orders: [], refunds: [] },
    start: '',
    steps: new Map(),
    timings: { modelLatencyMs: 0, chunkMs: 0, toolWaitMs: 0, gapMs: 0 },
  };
}

/** The tier of a user's graph; with a cassette, its lives record the model's replies or replay them. */
function moduleTier(spec: LangGraphModuleSpec, cassetteMode?: CassetteMode): WholeRunTier {
  const runFile: ModuleRunFile = cassetteMode === undefined ? spec : { ...spec, cassetteMode };
  return {
    name: 'langgraph-module',
    prepare: (_scenario, stateDir) => mkdirSync(stateDir, { recursive: true }),
    life: async (_scenario, request) => {
      const bundle = (await moduleChildBundle(spec.module)) ?? (await childBundle({ entry: CHILD_ENTRY, packages: 'external' }));
      const child = { engine: 'LangGraph', bundle, runFileVariable: MODULE_ENV.run, picksVariable: MODULE_ENV.picks, timeoutVariable: MODULE_LIFE_TIMEOUT_VARIABLE, badInputExit: EXIT_BAD_SETUP, badInputPhrase: 'cannot be checked' };
      return runEngineLife(child, request, `${spec.moduleArg} life ${request.lifeIndex}`, runFile);
    },
    stores: (_scenario, stateDir): Pick<RunOutcome, 'delivered' | 'writes' | 'refusals' | 'shop'> => {
      const file = join(stateDir, MODULE_STATE_FILES.stores);
      // A last life that crashed read nothing back: its crash is the verdict.
      if (!existsSync(file)) return { delivered: [], writes: [], refusals: [], shop: {} };
      const stores = JSON.parse(readFileSync(file, 'utf8')) as ModuleStores;
      return { delivered: stores.answer === null ? [] : [stores.answer], writes: effectsAsWrites(stores.effects), refusals: [], shop: { 'graph state': [stores.state] } };
    },
  };
}

export function langGraphModuleSystem(spec: LangGraphModuleSpec): SystemUnderTest {
  const tier = moduleTier(spec, spec.cassette === undefined ? undefined : 'replay');
  const selector = selectorOf(spec);
  const task = moduleTask(spec);
  const name = selector.slice(1).map(shellWord).join(' ');
  return {
    engine: 'langgraph',
    name,
    summary: `the LangGraph graph of ${spec.moduleArg}, each life a process killed with SIGKILL`,
    promised: MODULE_PROMISES,
    killPoints: MODULE_KILL_POINTS,
    selector,
    inProcess: false,
    ownTask: task,
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
        mustRepeatItself(spec, outcome, await runWholeInProcesses(tier, scenario, name, schedule));
        return outcome;
      };
      return processSession(scenario, run);
    },
  };
}

/** Two runs never killed must be the same run: else no kill point can be judged against one of them. */
function mustRepeatItself(spec: LangGraphModuleSpec, first: RunOutcome, second: RunOutcome): void {
  const what = `${spec.moduleArg}: two runs without a kill differ`;
  const a = first.lives[0]?.events ?? [];
  const b = second.lives[0]?.events ?? [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined || JSON.stringify(x) !== JSON.stringify(y)) {
      throw new SystemInputError(`${what} at event ${i}: ${x === undefined ? '(none)' : describeEvent(x)} in the first, ${y === undefined ? '(none)' : describeEvent(y)} in the second (a graph whose runs differ cannot be judged at a kill point)`);
    }
  }
  const effects = (o: RunOutcome) => o.writes.map((w) => `${w.kind} ${w.target} ${w.args}`);
  const ea = effects(first);
  const eb = effects(second);
  for (let i = 0; i < Math.max(ea.length, eb.length); i++) {
    if (ea[i] !== eb[i]) throw new SystemInputError(`${what} at effect ${i}: ${ea[i] ?? '(none)'} in the first, ${eb[i] ?? '(none)'} in the second`);
  }
  if (JSON.stringify(first.delivered) !== JSON.stringify(second.delivered)) throw new SystemInputError(`${what} in their answer: ${JSON.stringify(first.delivered[0] ?? null)} and ${JSON.stringify(second.delivered[0] ?? null)}`);
  if (JSON.stringify(first.shop) !== JSON.stringify(second.shop)) throw new SystemInputError(`${what} in the graph's final state`);
}
