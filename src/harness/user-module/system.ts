// A user's module as a system under test, whatever its engine: named by its module, its input and
// its other options (the words after `killpoint check` that select it again, and the name a
// corpus entry keeps), running a task of its own, and its run never killed run twice the first
// time a session asks for it, or, explored by equivalence, its first life held to a run from
// scratch (repeat.ts). An engine gives how a session runs a schedule, and its lives from saved
// states where it has them; the rest is written here.

import type { CheckName } from '../check/checks.js';
import type { RunOutcome, Schedule } from '../check/outcome.js';
import type { Scenario } from '../../model/scenario.js';
import { BaselineDidNotFinish, type SystemUnderTest, type TrafficOptions } from '../engine.js';
import { processSession, type ProcessLivesOf } from '../process/process-lives.js';
import { shellWord, shellWords } from '../shell-words.js';
import { livesHeldToARunFromScratch, mustRepeatItself } from './repeat.js';
import type { LifeTimes } from '../life-time-limit.js';
import { isModulePath, moduleTask, type UserModuleTarget } from './target.js';
import { TrafficRecorder } from './traffic-recorder.js';
import { TRAFFIC_WORDS, trafficWords } from './traffic-target.js';
import type { SessionRuns } from './session-runs.js';
export type { SessionRuns } from './session-runs.js';

export interface ModuleSystemSpec {
  /** The engine, as registered, and the option that names a module of it (--langgraph). */
  engine: string;
  option: string;
  target: UserModuleTarget;
  /** Its other options not at their defaults, as the command line gives them: [--flag, value]. */
  options: readonly (readonly [string, string])[];
  /** What the module makes, for the task's title (the graph, the workflow). */
  what: string;
  /** The task's name where the engine can tell it (a workflow's function), once the module is built; without it, the module's file names it. */
  taskName?: () => Promise<string>;
  /** Where its lives run (default: a process each). */
  tier?: 'in-process' | 'process';
  summary: string;
  promised: readonly CheckName[];
  killPoints: readonly string[];
  /** How one session runs a schedule (`name` is the outcome's strategy). */
  sessionRuns(scenario: Scenario, name: string): SessionRuns;
  /** Its lives from saved states, for a check that explores by equivalence; absent, every schedule runs from scratch. */
  lives?: ProcessLivesOf;
}


export function moduleSystem(spec: ModuleSystemSpec): SystemUnderTest {
  const { target } = spec;
  const selector = [spec.option, target.moduleArg, '--input', target.inputArg, ...(target.resume === undefined ? [] : ['--resume', target.resume.arg]), ...(target.resume?.redeliver === true ? ['--redeliver'] : []), ...trafficWords(target.traffic), ...spec.options.flat()];
  const recorder = new TrafficRecorder(target.traffic);
  const name = selector.slice(1).map(shellWord).join(' ');
  const system: SystemUnderTest = {
    engine: spec.engine,
    name,
    summary: spec.summary,
    promised: spec.promised,
    killPoints: spec.killPoints,
    selector,
    inProcess: false,
    tier: spec.tier ?? 'process',
    ownTask: moduleTask(target.moduleArg, spec.what),
    ...(spec.taskName === undefined ? {} : { ownTaskName: spec.taskName }),
    open: (scenario) => {
      const runs = recorder.around(spec.sessionRuns(scenario, name));
      let baselineChecked = false;
      const run = async (schedule: Schedule, times: LifeTimes): Promise<RunOutcome> => {
        const outcome = await runs(schedule, times);
        if (schedule.kills.length > 0 || baselineChecked) return outcome;
        baselineChecked = true;
        mustRepeatItself(target.moduleArg, outcome, await runs(schedule, times));
        return outcome;
      };
      const lives = spec.lives === undefined ? undefined : livesHeldToARunFromScratch(spec.lives, runs, target.moduleArg, (unfinished) => new BaselineDidNotFinish(system, unfinished));
      const session = processSession(scenario, run, lives);
      const stop = runs.close;
      if (stop === undefined) return session;
      return {
        ...session,
        close: async () => {
          try {
            await stop();
          } finally {
            await session.close();
          }
        },
      };
    },
  };
  return system;
}

/**
 * The tier a system's name read back asks for (its --tier), else `asked`; null when its --tier
 * names no tier (the words are then no system's name).
 */
export function tierNamed(values: Map<string, string>, asked?: 'in-process' | 'process'): 'in-process' | 'process' | undefined | null {
  const tier = values.get('--tier') ?? asked;
  return tier === undefined || tier === 'in-process' || tier === 'process' ? tier : null;
}

/**
 * A system's name read back (a corpus entry's strategy): the module, then `--input`, `--resume`
 * (and `--redeliver`, alone) and the engine's `flags`, each with its value. Undefined when the words are not one.
 */
export function moduleOptionsNamed(name: string, flags: readonly string[]): ({ module: string; inputFile?: string; resumeFile?: string; redeliver?: true; values: Map<string, string> } & TrafficOptions) | undefined {
  const words = shellWords(name);
  if (words === undefined || words.length === 0) return undefined;
  const [module, ...afterModule] = words as [string, ...string[]];
  // --redeliver stands alone; every other flag comes with its value.
  const redeliver = afterModule.includes('--redeliver');
  const rest = afterModule.filter((w) => w !== '--redeliver');
  if (!isModulePath(module)) return undefined;
  const values = new Map<string, string>();
  let inputFile: string | undefined;
  let resumeFile: string | undefined;
  const traffic: TrafficOptions = {};
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i]!;
    const value = rest[i + 1];
    if (value === undefined) return undefined;
    if (flag === '--input') inputFile = value;
    else if (flag === '--resume') resumeFile = value;
    else if (TRAFFIC_WORDS[flag] !== undefined) traffic[TRAFFIC_WORDS[flag]] = value;
    else if (flags.includes(flag)) values.set(flag, value);
    else return undefined;
  }
  return { module, ...(inputFile === undefined ? {} : { inputFile }), ...(resumeFile === undefined ? {} : { resumeFile }), ...(redeliver ? { redeliver: true as const } : {}), ...traffic, values };
}
