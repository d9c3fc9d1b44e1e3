// What the TypeScript child needs to know about its run, as a JSON file: the scenario and the
// strategy.

import type { SerializedScenario } from '../../../../model/scenario-json.js';
import type { AnyStrategyName } from '../strategies.js';

/** Environment variables of the TypeScript child only, beside the protocol's own (protocol.ts). */
export const TS_ENV = { run: 'KILLPOINT_TS_RUN', picks: 'KILLPOINT_TS_PICKS' } as const;

export interface RunSpec {
  scenario: SerializedScenario;
  strategy: AnyStrategyName;
}
