// DBOS's own kinds of event, beyond the scenario's: the workflow's status row committed, and its
// output recorded; for a user's own workflow, each step's start and return, and its waits in
// DBOS.recv (a turn handed to one is the shared RESUME_ACCEPTED). Its step records are the shared STEP_RECORDED (src/harness/check/event-kinds.ts),
// the same moment as the scripted workflow strategy's (differential.ts).

import { REDELIVERY_SEEN, registerEventKinds, RESUME_ACCEPTED, TURN_REDELIVERED, waitRecordedKind, type EngineEventKind } from '../../check/event-kinds.js';

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

/** A step of a user's workflow is about to run its function (DBOS found it unrecorded: module/steps.ts). */
export const STEP_START = {
  kind: 'step-start',
  meaning: "a workflow step began to run its function (DBOS found no record of it)",
  group: 'tool',
  label: (e) => `step ${e.step} (${e.stepName}): start`,
  subject: (e) => `step ${e.step}`,
} as const satisfies EngineEventKind;

/** A step's function returned; DBOS has not recorded its output yet. */
export const STEP_RETURN = {
  kind: 'step-return',
  meaning: "a workflow step's function returned (its output not yet recorded)",
  group: 'tool',
  label: (e) => `step ${e.step} (${e.stepName}): returned`,
  subject: (e) => `step ${e.step}`,
} as const satisfies EngineEventKind;

/**
 * A user's workflow waits in DBOS.recv(topic) for a message of the outside world (module/waits.ts),
 * named by its topic and which time there. DBOS records nothing of the wait itself until recv
 * returns: what is durable is the workflow, pending, with every step before it recorded, so a
 * recovery runs up to the same recv and waits there again.
 */
export const RECV_WAITING = waitRecordedKind('recv', 'the workflow waits in DBOS.recv for a message on its topic (every step before it recorded)', 'the workflow waits');

/** The kinds only DBOS has; with STEP_RECORDED and RESUME_ACCEPTED (shared), every kind it adds to the scenario's. */
export const DBOS_EVENT_KINDS: readonly EngineEventKind[] = [WORKFLOW_STARTED, WORKFLOW_RECORDED, STEP_START, STEP_RETURN, RECV_WAITING];

// Known as soon as this file loads: the code that emits these kinds imports it.
registerEventKinds([...DBOS_EVENT_KINDS, RESUME_ACCEPTED, TURN_REDELIVERED, REDELIVERY_SEEN], 'dbos');
