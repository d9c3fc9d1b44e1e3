// A system whose lives are processes, made from its engine's tier: each session runs whole
// schedules (whole-run.ts) and offers its lives one at a time (process-lives.ts), both from the
// same tier. A real engine names its system and says what it promises; the rest is written here.

import type { CheckName } from '../check/checks.js';
import type { LifeTier, SystemOptions, SystemUnderTest } from '../engine.js';
import { processLives, processSession, type ProcessTier } from './process-lives.js';
import { runWholeInProcesses } from './whole-run.js';

export interface ProcessSystemSpec {
  /** The engine, as registered, and the system's name within it (the `--strategy` that selects it). */
  engine: string;
  name: string;
  summary: string;
  promised: readonly CheckName[];
  /** The kinds of event a life can be killed right after. */
  killPoints: readonly string[];
  tier: ProcessTier;
  /** Set when its lives run in killpoint's own process (the tier's life says how); default 'process'. */
  runsIn?: Extract<LifeTier, 'in-process' | 'process'>;
  /** Words after --strategy that select it again in a replay command (the tier, when it is not the engine's default). */
  selectorTail?: readonly string[];
}

export function processSystem(spec: ProcessSystemSpec): SystemUnderTest {
  const { engine, name, summary, promised, killPoints, tier, runsIn = 'process' } = spec;
  const livesOf = processLives(tier);
  return {
    engine,
    name,
    summary,
    promised,
    killPoints,
    selector: ['--engine', engine, '--strategy', name, ...(spec.selectorTail ?? [])],
    inProcess: false,
    tier: runsIn,
    open: (scenario) => processSession(scenario, (schedule, times) => runWholeInProcesses(tier, scenario, name, schedule, times), livesOf),
  };
}

/** The systems of an engine by name, each made once: `make` answers undefined for a name it does not know. */
export function systemsByName(make: (name: string) => SystemUnderTest | undefined): (name: string) => SystemUnderTest | undefined {
  const made = new Map<string, SystemUnderTest>();
  return (name) => {
    let system = made.get(name);
    if (system === undefined) {
      system = make(name);
      if (system !== undefined) made.set(name, system);
    }
    return system;
  };
}

type RealTier = NonNullable<SystemOptions['tier']>;

/** The systems of an engine by name in either tier, each made once: `options.tier` chooses, else `defaultTier`. */
export function systemsByTier(make: (name: string, tier: RealTier) => SystemUnderTest | undefined, defaultTier: RealTier): (name: string, options?: SystemOptions) => SystemUnderTest | undefined {
  const inTier = { 'in-process': systemsByName((name) => make(name, 'in-process')), process: systemsByName((name) => make(name, 'process')) };
  return (name, options = {}) => inTier[options.tier ?? defaultTier](name);
}
