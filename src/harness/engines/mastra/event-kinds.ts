// Mastra's own kinds of event, beyond the scenario's: a snapshot of the run persisted to its
// storage that records no step's result (the run created, steps marked running, the run's end);
// for a user's own workflow, each step's execute beginning and returning.
// A snapshot that records a step's result is the shared STEP_RECORDED
// (src/harness/check/event-kinds.ts), the same moment as the scripted workflow strategy's.

import type { RunEvent } from '../../check/events.js';
import { registerEventKinds, type EngineEventKind } from '../../check/event-kinds.js';

/** What a snapshot says, for its label and identity: the run's status, and the steps it marks running. */
function snapshotSubject(e: RunEvent): string {
  const { status, running } = e as unknown as { status?: unknown; running?: unknown };
  const steps = Array.isArray(running) ? (running as string[]) : [];
  return steps.length === 0 ? String(status) : `${String(status)} ${steps.join(' ')}`;
}

export const SNAPSHOT_PERSISTED = {
  kind: 'snapshot-persisted',
  meaning: "Mastra persisted the run's snapshot (created, steps marked running, or its end), recording no step's result",
  glyph: 'm',
  label: (e) => `snapshot persisted (${snapshotSubject(e)})`,
  subject: (e) => snapshotSubject(e),
} as const satisfies EngineEventKind;

/** A step of a user's workflow is about to run its execute function (module/steps.ts). */
export const EXECUTE_START = {
  kind: 'execute-start',
  meaning: "a workflow step's execute function began",
  group: 'tool',
  label: (e) => `step ${String(e.stepName)}: execute began`,
  subject: (e) => String(e.stepName),
} as const satisfies EngineEventKind;

/** A step's execute function returned; Mastra has not persisted its result yet. */
export const EXECUTE_RETURN = {
  kind: 'execute-return',
  meaning: "a workflow step's execute function returned (its result not yet in a snapshot)",
  group: 'tool',
  label: (e) => `step ${String(e.stepName)}: execute returned`,
  subject: (e) => String(e.stepName),
} as const satisfies EngineEventKind;

export const MASTRA_EVENT_KINDS: readonly EngineEventKind[] = [SNAPSHOT_PERSISTED, EXECUTE_START, EXECUTE_RETURN];

// Known as soon as this file loads: the code that emits these kinds imports it.
registerEventKinds(MASTRA_EVENT_KINDS, 'mastra');
