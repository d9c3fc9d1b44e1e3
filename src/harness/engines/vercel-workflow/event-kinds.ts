// Vercel Workflow's own kinds of event, beyond the scenario's: the moments the local world writes
// an event of the run (the life wraps world.events.create and emits right after it returns, so a
// kill there leaves the event on disk). A step's step_completed is the shared STEP_RECORDED
// (src/harness/check/event-kinds.ts), the same moment as DBOS's step record and the scripted
// workflow strategy's (differential.ts). Steps are named by their number in the run (the order the
// workflow created them, the same in every run), a step's record by its tool call where it has one.

import { registerEventKinds, waitRecordedKind, type EngineEventKind } from '../../check/event-kinds.js';

/** The run's first event: it exists, nothing of it has run; a life that finds it resumes it instead of starting another. */
export const RUN_CREATED = {
  kind: 'run-created',
  meaning: 'the world wrote run_created: the run exists, nothing of it has run yet',
  glyph: 'R',
  label: () => 'run created',
} as const satisfies EngineEventKind;

/** The workflow function was invoked (it replays from the run's events): written at each invocation. */
export const RUN_STARTED = {
  kind: 'run-started',
  meaning: 'the world wrote run_started: the workflow function is invoked and replays the run so far',
  label: () => 'workflow invoked (run_started)',
} as const satisfies EngineEventKind;

export const STEP_CREATED = {
  kind: 'step-created',
  meaning: 'the world wrote step_created: the workflow asked for a step, which has not run',
  label: (e) => `step ${e.step} (${e.stepName}) created`,
  subject: (e) => `step ${e.step}`,
} as const satisfies EngineEventKind;

export const STEP_STARTED = {
  kind: 'step-started',
  meaning: "the world wrote step_started: the step's function is about to run (again, after a kill)",
  group: 'tool',
  label: (e) => `step ${e.step} (${e.stepName}) started`,
  subject: (e) => `step ${e.step}`,
} as const satisfies EngineEventKind;

/** A user's step returned; its step_completed is not written yet (the gap of a step whose effects killpoint sees only through the module). */
export const STEP_RETURNED = {
  kind: 'step-returned',
  meaning: "a step's function returned; the world has not written its step_completed yet",
  group: 'tool',
  label: (e) => `step ${e.step} (${e.stepName}) returned`,
  subject: (e) => `step ${e.step}`,
} as const satisfies EngineEventKind;

/** The run's output is written; the answer is not yet delivered. */
export const RUN_COMPLETED = {
  kind: 'run-completed',
  meaning: "the world wrote run_completed: the workflow's output is recorded, the answer not yet delivered",
  glyph: 'C',
  label: () => 'run completed',
} as const satisfies EngineEventKind;

/**
 * A user's workflow waits on a hook (createHook(), createWebhook()): the world wrote its
 * hook_created and nothing of the run is in flight, so the run stays suspended until a payload
 * comes. Named by the wait (the hook's token and which payload of it: `refund-approval:O-7#1`).
 */
export const HOOK_WAITING = waitRecordedKind('hook', 'the workflow waits on a hook: the world wrote its hook_created and the run is suspended until a payload comes', 'the run waits', 'H');

/** resumeHook wrote the turn's payload (hook_received); the workflow has not been invoked with it yet. */
export const HOOK_RECEIVED = {
  kind: 'hook-received',
  meaning: "the world wrote hook_received: the turn's payload is recorded, the workflow not yet invoked with it",
  group: 'save',
  label: (e) => `hook ${e.wait}: payload recorded (hook_received)`,
  subject: (e) => e.wait ?? '',
} as const satisfies EngineEventKind;

/** The kinds only Vercel Workflow has; with STEP_RECORDED, RESUME_ACCEPTED, SLEEPING and WOKE (shared), every kind it adds to the scenario's. */
export const VERCEL_EVENT_KINDS: readonly EngineEventKind[] = [RUN_CREATED, RUN_STARTED, STEP_CREATED, STEP_STARTED, STEP_RETURNED, RUN_COMPLETED, HOOK_WAITING, HOOK_RECEIVED];

// Known as soon as this file loads: the code that emits these kinds imports it.
registerEventKinds(VERCEL_EVENT_KINDS, 'vercel-workflow');
