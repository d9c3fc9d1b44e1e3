// What a Vercel Workflow life needs to know about its run, as a JSON file beside its state, and
// the files it keeps its state in. Shared by the parent and the child; imports no Workflow SDK.

import type { SerializedScenario } from '../../../model/scenario-json.js';
import type { VercelConfig } from './config.js';

/** Environment variables of the child, beside the protocol's own (src/harness/process/protocol.ts). */
export const VW_ENV = {
  run: 'KILLPOINT_VW_RUN',
  picks: 'KILLPOINT_VW_PICKS',
} as const;

export interface VercelRunSpec {
  scenario: SerializedScenario;
  config: VercelConfig;
}

/** The state folder: the shop, the outbox, and the local world's data folder (runs, steps, events, streams). */
export const VW_STATE_FILES = { shop: 'shop.sqlite', outbox: 'outbox.jsonl', world: 'world' } as const;

/** Seconds a life may take, when a shorter (or longer) limit is wanted. */
export const VW_LIFE_TIMEOUT_VARIABLE = 'KILLPOINT_VW_LIFE_TIMEOUT_S';

/** The child's exit status when its run cannot be resumed as it is (more than one run in the world): bad input, not a verdict. */
export const VW_EXIT_BAD_INPUT = 2;

/** The two bundles' files in the bundles' folder, and the manifest of what they hold. */
export const BUNDLE_FILES = { workflows: 'workflows.mjs', steps: 'steps.mjs', ids: 'ids.json' } as const;

/** The workflows' ids as the build named them (read from its manifest). */
export interface WorkflowIds {
  agent: string;
  steps: string;
}
