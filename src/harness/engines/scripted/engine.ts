// killpoint's own scripted runner as an engine: one system per strategy or broken variant, each
// run in process over in-memory stores (simulate.ts), so thousands of kill-and-resume runs take a
// second. Its process tier (process/) runs the same lives in child processes for the differential
// check.

import { INTERRUPT_RECORDED, JOURNAL_SAVE, JOURNAL_WRITE, RESUME_ACCEPTED, STEP_RECORDED } from '../../check/event-kinds.js';
import type { EventKind } from '../../check/events.js';
import type { Engine, InProcessSystem, SystemUnderTest } from '../../engine.js';
import { realKill, scriptedTier } from './process/real-kill.js';
import { processLives, processSession, type ProcessLivesOptions } from '../../process/process-lives.js';
import { scriptedSession } from './life-by-life.js';
import { promisedChecks } from './promises.js';
import { SCRIPTED_SYSTEM_NAMES, STRATEGY_NAMES, strategy as strategyNamed, type AnyStrategyName } from './strategies.js';

/** The moments the scripted runner can be killed after. */
const SCRIPTED_EVENT_KINDS: readonly EventKind[] = ['model-request', 'model-chunk', 'model-reply', 'tool-start', 'shop-commit', 'tool-result', 'journal-write', 'journal-save', 'step-recorded', 'interrupt', 'resume', 'answer-delivered'];

const systems = new Map<string, InProcessSystem>();
const processSystems = new Map<string, SystemUnderTest>();

/**
 * The same strategy with each life a child process that sends itself SIGKILL, its stores in real
 * files: the ground truth the in-process system is checked against (src/harness/differential/real-vs-simulated.ts).
 * `options` chooses how its lives' processes start (a system of its own, not the one kept by name).
 */
export function scriptedProcess(name: AnyStrategyName | string, options?: ProcessLivesOptions): SystemUnderTest {
  let system = options === undefined ? processSystems.get(name) : undefined;
  if (system === undefined) {
    const inProcess = scripted(name);
    const strategyName = inProcess.name as AnyStrategyName;
    const livesOf = processLives(scriptedTier(strategyName), options);
    system = {
      ...inProcess,
      summary: `${inProcess.summary} (each life a process killed with SIGKILL)`,
      inProcess: false,
      open: (scenario) => processSession(scenario, (schedule) => realKill(scenario, strategyName, schedule), livesOf),
    };
    if (options === undefined) processSystems.set(name, system);
  }
  return system;
}

/**
 * The scripted engine's system for a strategy or broken variant (throws on an unknown name). It
 * answers at once, and is typed so: the search answers it with plain values (engine.ts: Answer).
 */
export function scripted(name: AnyStrategyName | string): InProcessSystem {
  let system = systems.get(name);
  if (system === undefined) {
    const strategy = strategyNamed(name);
    system = {
      engine: 'scripted',
      name: strategy.name,
      summary: strategy.summary,
      promised: promisedChecks(strategy),
      killPoints: SCRIPTED_EVENT_KINDS,
      selector: ['--strategy', strategy.name],
      inProcess: true,
      open: (scenario) => scriptedSession(scenario, strategy),
    };
    systems.set(name, system);
  }
  return system;
}

export const scriptedEngine: Engine = {
  name: 'scripted',
  summary: "killpoint's own agent runner, in process, under five ways to recover and six broken variants (and a journal with a person approving refunds)",
  systemNames: SCRIPTED_SYSTEM_NAMES,
  defaultSystems: STRATEGY_NAMES,
  system: (name) => ((SCRIPTED_SYSTEM_NAMES as readonly string[]).includes(name) ? scripted(name) : undefined),
  // A journal's two moments, a workflow's step record, a person asked and answered: kinds other agents emit too, declared once.
  eventKinds: [JOURNAL_WRITE, JOURNAL_SAVE, STEP_RECORDED, INTERRUPT_RECORDED, RESUME_ACCEPTED],
};
