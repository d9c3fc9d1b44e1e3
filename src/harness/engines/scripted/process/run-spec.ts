// What the TypeScript child needs to know about its run, as a JSON file: the scenario (its step
// graph is a Map, so it travels as a list of entries) and the strategy.

import type { ModelStep, Scenario } from '../../../../model/scenario.js';
import type { AnyStrategyName } from '../strategies.js';

/** Environment variables of the TypeScript child only, beside the protocol's own (protocol.ts). */
export const TS_ENV = { run: 'KILLPOINT_TS_RUN', picks: 'KILLPOINT_TS_PICKS' } as const;

export interface SerializedScenario extends Omit<Scenario, 'steps'> {
  steps: [string, ModelStep][];
}

export interface RunSpec {
  scenario: SerializedScenario;
  strategy: AnyStrategyName;
}

export function serializeScenario(scenario: Scenario): SerializedScenario {
  return { ...scenario, steps: [...scenario.steps.entries()] };
}

export function deserializeScenario(s: SerializedScenario): Scenario {
  return { ...s, steps: new Map(s.steps) };
}
