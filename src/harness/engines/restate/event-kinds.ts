// Restate's own kinds of event, beyond the scenario's: a `ctx.run` closure beginning to run (the
// SDK's run interceptor, which fires only for a step the journal does not hold), and the
// invocation's output recorded by the server. A step journaled (`ctx.run` resolved: the server
// has stored its result) is the shared STEP_RECORDED (src/harness/check/event-kinds.ts), the same
// moment as the scripted workflow strategy's step record (differential.ts).

import { registerEventKinds, RESUME_ACCEPTED, waitRecordedKind, type EngineEventKind } from '../../check/event-kinds.js';

/** How a step is named in a label: the bundled agent's tool call, or a user's step name. */
const stepOf = (e: { callId?: string; stepName?: string }): string => (e.callId !== undefined ? ` (${e.callId})` : e.stepName !== undefined && e.stepName !== '' ? ` (${e.stepName})` : '');

/** A ctx.run closure began to run: Restate found no result of it in the journal. */
export const RUN_START = {
  kind: 'run-start',
  meaning: 'Restate began to run a step (a ctx.run closure whose result the journal does not hold)',
  group: 'tool',
  label: (e) => `step ${e.step}${stepOf(e)}: ctx.run started`,
  subject: (e) => (e.callId === undefined ? `step ${e.step}` : e.callId),
} as const satisfies EngineEventKind;

/** A ctx.run closure of a user's service returned: its result is not journaled yet (the gap). */
export const RUN_RETURN = {
  kind: 'run-return',
  meaning: "a ctx.run closure returned; Restate has not journaled its result yet",
  group: 'tool',
  label: (e) => `step ${e.step}${stepOf(e)}: ctx.run returned`,
  subject: (e) => `step ${e.step}`,
} as const satisfies EngineEventKind;

/** The invocation's output is recorded by the server; the answer is not yet delivered. */
export const INVOCATION_DONE = {
  kind: 'invocation-done',
  meaning: "Restate recorded the invocation's output; the answer is not yet delivered",
  glyph: 'i',
  label: () => 'invocation done',
} as const satisfies EngineEventKind;

/**
 * A user's handler awaits an awakeable (module/awakeables.ts), named by its handler and which time
 * there (`refund#1`). Restate journals no entry for making one: its id is the invocation's id and
 * the awakeable's number in it, the same in every attempt, and the steps before it are journaled
 * (each ctx.run the handler awaited was acknowledged), so a recovery comes back to the same wait.
 */
export const AWAKEABLE_WAITING = waitRecordedKind('awakeable', 'the handler awaits an awakeable: the run waits for a resolve from outside');

/**
 * A user's workflow's run awaits a durable promise (`ctx.promise(name)`), named by the promise and
 * which time there (`approval#1`). Its get is a journal entry; a recovery replays the run to the same
 * get, and a value a shared handler gave the promise before is the workflow's.
 */
export const PROMISE_WAITING = waitRecordedKind('promise', "the workflow's run awaits a durable promise: the run waits for a shared handler to resolve it");

/** The kinds only Restate has; with STEP_RECORDED and RESUME_ACCEPTED (shared), every kind it adds to the scenario's. */
export const RESTATE_EVENT_KINDS: readonly EngineEventKind[] = [RUN_START, RUN_RETURN, INVOCATION_DONE, AWAKEABLE_WAITING, PROMISE_WAITING, RESUME_ACCEPTED];

// Known as soon as this file loads: the code that emits these kinds imports it.
registerEventKinds(RESTATE_EVENT_KINDS, 'restate');
