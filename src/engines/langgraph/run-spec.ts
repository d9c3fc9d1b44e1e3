// What a LangGraph life needs to know about its run, as a JSON file beside its state, and the
// files it keeps its state in. Shared by the parent and the child; imports no LangChain.

import type { SerializedScenario } from '../scripted/process/run-spec.js';
import type { LangGraphConfig } from './config.js';

/** Environment variables of the LangGraph child, beside the protocol's own (src/real/protocol.ts). */
export const LG_ENV = { run: 'KILLPOINT_LG_RUN', picks: 'KILLPOINT_LG_PICKS' } as const;

export interface LangGraphRunSpec {
  scenario: SerializedScenario;
  config: LangGraphConfig;
}

export const STATE_FILES = { shop: 'shop.sqlite', checkpoints: 'checkpoints.sqlite', outbox: 'outbox.jsonl' } as const;

/** What a life that did not die leaves in its result file. */
export type LangGraphLifeResult =
  | { end: 'finished'; conversation: unknown[] | null }
  | { end: 'failed'; errorKind: 'conversation-rejected'; error: string };
