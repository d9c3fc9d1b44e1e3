// The moments Mastra persists a run's snapshot, as events: the workflows store's
// persistWorkflowSnapshot is wrapped, and after each snapshot is written the life emits
// step-recorded for every step whose result it records anew (succeeded, or ended the run by
// bail(); a step that ran again is recorded again), or else one snapshot-persisted naming the
// run's status and the steps it marks running.
// Wrapping the store is Mastra's own seam (a storage is any object with its methods); the events
// of watch() or stream() come before or after the write, never at it.

import type { EmitEvent } from '../../process/child-main.js';
import { SNAPSHOT_PERSISTED } from './event-kinds.js';

interface StepRecord {
  status: string;
  output?: unknown;
}
interface Snapshot {
  status: string;
  context: Record<string, StepRecord | unknown>;
}
interface WorkflowsStore {
  persistWorkflowSnapshot(args: { snapshot: Snapshot }): Promise<unknown>;
}

/** A step's statuses once it has returned: its result, or the run's result when it ended the run (bail). */
const DONE = new Set(['success', 'bailed']);

function stepStatuses(snapshot: Snapshot | null): Map<string, StepRecord> {
  const steps = new Map<string, StepRecord>();
  for (const [id, record] of Object.entries(snapshot?.context ?? {})) {
    if (id !== 'input' && typeof record === 'object' && record !== null && 'status' in record) steps.set(id, record as StepRecord);
  }
  return steps;
}

/** A step's record as an event's fields, or null when the step is not one of the agent's (it ran nothing). */
export type RecordOf = (stepName: string, output: unknown) => { step: number; stepName: string; callId?: string } | null;

/** The bundled agent's steps (workflow.ts): what a step's recorded output says of it, its number and its call when it is a tool step. */
export const agentStepRecord: RecordOf = (stepName, output) => {
  const o = output as { step?: unknown; callId?: unknown } | undefined;
  if (typeof o?.step !== 'number') return null; // a tool step with no call in its reply
  return typeof o.callId === 'string' ? { step: o.step, stepName, callId: o.callId } : { step: o.step, stepName };
};

export function reportSnapshots(store: unknown, before: unknown, emit: EmitEvent, recordOf: RecordOf): void {
  const workflows = store as WorkflowsStore;
  const persist = workflows.persistWorkflowSnapshot.bind(workflows);
  let last = stepStatuses(before as Snapshot | null);
  workflows.persistWorkflowSnapshot = async (args) => {
    const written = await persist(args);
    const now = stepStatuses(args.snapshot);
    const recorded = [...now].filter(([id, r]) => DONE.has(r.status) && !DONE.has(last.get(id)?.status ?? '')).flatMap(([id, r]) => recordOf(id, r.output) ?? []);
    last = now;
    for (const r of recorded.sort((a, b) => a.step - b.step)) emit({ kind: 'step-recorded', ...r });
    if (recorded.length === 0) {
      const running = [...now].filter(([, r]) => r.status === 'running').map(([id]) => id);
      emit({ kind: SNAPSHOT_PERSISTED.kind, status: args.snapshot.status, running });
    }
    return written;
  };
}
