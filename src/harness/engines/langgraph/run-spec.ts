// What a LangGraph life needs to know about its run, as a JSON file beside its state, and the
// files it keeps its state in. Shared by the parent and the child; imports no LangChain.

import type { SerializedScenario } from '../../../model/scenario-json.js';
import type { LangGraphConfig } from './config.js';

/** Environment variables of the LangGraph child, beside the protocol's own (src/harness/process/protocol.ts). */
export const LG_ENV = { run: 'KILLPOINT_LG_RUN', picks: 'KILLPOINT_LG_PICKS' } as const;

/** Seconds a life may take before it is taken to hang, when the default (120 s) is not wanted. */
export const LANGGRAPH_LIFE_TIMEOUT_VARIABLE = 'KILLPOINT_LANGGRAPH_LIFE_TIMEOUT_S';

/** Exit status of a life that found its durable state unusable (bad input, not a verdict). */
export const EXIT_BAD_INPUT = 4;

/**
 * Faults a test injects to prove that each bad input is told apart from a verdict (never set by
 * the command line): a checkpointer that keeps nothing on disk (the run never reaches a durable
 * checkpoint), a life that hangs or crashes right after the first event of a kind, and a file
 * copied in as the checkpoint database before the first life.
 */
export interface LangGraphFaults {
  checkpointer?: 'memory';
  hangAfter?: string;
  crashAfter?: string;
  checkpointsFrom?: string;
}

export interface LangGraphRunSpec {
  scenario: SerializedScenario;
  config: LangGraphConfig;
  faults?: LangGraphFaults;
}

export const LANGGRAPH_STATE_FILES = { shop: 'shop.sqlite', checkpoints: 'checkpoints.sqlite', outbox: 'outbox.jsonl' } as const;
