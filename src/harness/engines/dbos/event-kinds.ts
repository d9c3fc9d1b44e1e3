// DBOS's own kinds of event, beyond the scenario's: the workflow's status row committed, and its
// output recorded. Its step records are the shared STEP_RECORDED (src/harness/check/event-kinds.ts),
// the same moment as the scripted workflow strategy's (differential.ts).

import { registerEventKinds, type EngineEventKind } from '../../check/event-kinds.js';

export const WORKFLOW_STARTED = {
  kind: 'workflow-started',
  meaning: "DBOS committed the workflow's status row; nothing of the workflow has run yet",
  label: () => 'workflow-started',
} as const satisfies EngineEventKind;

export const WORKFLOW_RECORDED = {
  kind: 'workflow-recorded',
  meaning: "DBOS recorded the workflow's output; the answer is not yet delivered",
  label: () => 'workflow-recorded',
} as const satisfies EngineEventKind;

/** The kinds only DBOS has; with STEP_RECORDED, every kind it adds to the scenario's. */
export const DBOS_EVENT_KINDS: readonly EngineEventKind[] = [WORKFLOW_STARTED, WORKFLOW_RECORDED];

// Known as soon as this file loads: the code that emits these kinds imports it.
registerEventKinds(DBOS_EVENT_KINDS, 'dbos');
