// What a Mastra life needs to know about its run, as a JSON file beside its state, and the files it
// keeps its state in. Shared by the parent and the child; imports no Mastra.

import type { SerializedScenario } from '../../../model/scenario-json.js';
import type { MastraConfig } from './config.js';

/** Environment variables of the child, beside the protocol's own (src/harness/process/protocol.ts). */
export const MASTRA_ENV = { run: 'KILLPOINT_MASTRA_RUN', picks: 'KILLPOINT_MASTRA_PICKS' } as const;

export interface MastraRunSpec {
  scenario: SerializedScenario;
  config: MastraConfig;
}

/** The state folder: the shop, the outbox, and Mastra's storage (a libSQL file holding the run's snapshot). */
export const MASTRA_STATE_FILES = { shop: 'shop.sqlite', outbox: 'outbox.jsonl', storage: 'mastra.db' } as const;

/** The workflow's id in Mastra's storage; one run per state folder, so its run id is the scenario's. */
export const WORKFLOW_ID = 'killpoint-agent';
export const runIdOf = (scenarioId: string): string => `killpoint-${scenarioId}`;

/** Seconds a life may take, when a shorter (or longer) limit is wanted. */
export const MASTRA_LIFE_TIMEOUT_VARIABLE = 'KILLPOINT_MASTRA_LIFE_TIMEOUT_S';
