// A scenario as JSON, for a child process that reads its run from a file: the step graph is a
// Map, so it travels as a list of entries. Every engine whose lives are processes writes it so.

import type { ModelStep, Scenario } from './scenario.js';

export interface SerializedScenario extends Omit<Scenario, 'steps'> {
  steps: [string, ModelStep][];
}

export function serializeScenario(scenario: Scenario): SerializedScenario {
  return { ...scenario, steps: [...scenario.steps.entries()] };
}

export function deserializeScenario(s: SerializedScenario): Scenario {
  return { ...s, steps: new Map(s.steps) };
}
