// A run in the local world of a life's state folder, whatever workflow it runs (killpoint's own
// agent, life.ts, or a user's module, module/life.ts): the life registers the workflow and step
// bundles' handlers (ordered: step-order.ts) before the world starts (a start re-enqueues the runs
// that are still active: that is the recovery), starts the run unless the world has one already,
// and waits for its output.
//
// The run's id is the world's own: run_created is the first thing a run writes, and a life that
// finds a run resumes it, so a kill before run_created leaves no run (the next life starts the
// only one) and a kill after it never starts a second. A world with more than one run is not a
// state any life of ours leaves: bad input.
//
// Events, each emitted right after the world's event is written (world.events.create wrapped), so
// that a kill there leaves exactly the events written up to it: run-created, run-started,
// step-created, step-started, step-recorded (step_completed), run-completed. Asked for
// (`stepReturns`), step-returned right before a step's step_completed is written: its function has
// returned and the world does not know it yet (the gap of a step whose effects killpoint cannot
// see from inside, as it sees a tool's commit).
//
// A user's workflow may wait on a hook (module/hook-waits.ts): `waits` is told of every event the
// life writes (and names the hook's events), and of each moment nothing of the run is in flight
// while it has not ended, when it hands the hook its turn.
//
// The life runs on killpoint's clock (life-clock.ts): a delivery the queue would hold back (a
// sleep() not yet over, a step's retry) waits for the moment nothing else of the run is in flight,
// then goes at once with the clock moved to its due time (queue-delays.ts), before any hook is
// handed its turn. A sleep says two events: sleep (wait_created written: the run sleeps) and woke
// (wait_completed written: the sleep is over, the workflow not yet invoked past it), its sleeps
// numbered as its steps are.

import { mkdirSync } from 'node:fs';
import { createLocalWorld } from '@workflow/world-local';
import { setWorld } from 'workflow/runtime';
import { getRun } from 'workflow/api';
import type { EmitEvent } from '../../process/child-main.js';
import { haltsWhenKilled } from '../../in-process/fence.js';
import { installLifeClock, latestEventTime } from './life-clock.js';
import { OrderedWrites } from './ordered-writes.js';
import { QueueDelays } from './queue-delays.js';
import { discoverPortOnce } from './port-once.js';
import { StepNumbers, shortStepName } from './step-numbers.js';
import { StepOrder, type QueueHandler } from './step-order.js';
import './event-kinds.js';

/** The bundles' queue handlers a life registers. */
export interface WorldHandlers {
  workflows: { POST: QueueHandler };
  steps: { POST: QueueHandler };
}

export interface WorldRunInputs {
  worldDir: string;
  handlers: WorldHandlers;
  picks: number[];
  onPick: (pick: number, width: number) => void;
  emit: EmitEvent;
  /** Starts the run (a world that has none yet): its id. */
  start: () => Promise<string>;
  /** The tool call a step ran, for its record's name (killpoint's agent). */
  callOfStep?: (stepId: string) => string | undefined;
  /** Emit step-returned before each step_completed is written. */
  stepReturns?: boolean;
  /** Rejects when the life fails from inside a step (a conversation the model rejects). */
  failed?: Promise<never>;
  /** Handed the world as soon as it is made (a life in killpoint's process closes it at its kill: in-process-life.ts). */
  holdWorld?: (world: { close?(): Promise<void> }) => void;
  /** A user's workflow's waits on hooks. */
  waits?: WorldWaits;
}

/** A world event as the life writes it. */
export interface WorldEventData {
  eventType: string;
  correlationId?: string;
  eventData?: { stepName?: string; token?: string };
}

/** A run's waits for the outside world (module/hook-waits.ts). */
export interface WorldWaits {
  /** Told of each world event this life wrote, right after it is written: the event to emit for it, if any. */
  written(data: WorldEventData): Parameters<EmitEvent>[0] | undefined;
  /** Nothing of the run is in flight and it has not ended: it waits on something outside it. A rejection fails the life. */
  idle(): Promise<void>;
}

/** A world that holds more than one run: no life of ours leaves one, so it is not a state to resume. */
export class NotOneRun extends Error {
  constructor(runs: number, worldDir: string) {
    super(`vercel-workflow: the local world in ${worldDir} holds ${runs} runs; a killpoint run keeps exactly one, so it cannot be resumed`);
    this.name = 'NotOneRun';
  }
}

interface EventsApi {
  create(runId: string | null, data: WorldEventData, params?: unknown): Promise<unknown>;
}

/** Runs (or resumes) the world's one run to its end: its output. */
export async function runInWorld(inputs: WorldRunInputs): Promise<unknown> {
  mkdirSync(inputs.worldDir, { recursive: true });
  await discoverPortOnce();
  // Before the world is made: every time it writes is on the life's clock.
  const clock = installLifeClock(latestEventTime(inputs.worldDir));
  const delays = new QueueDelays(clock);
  try {
    return await runOnClock(inputs, delays);
  } finally {
    delays.releaseAll();
    clock.restore();
  }
}

async function runOnClock(inputs: WorldRunInputs, delays: QueueDelays): Promise<unknown> {
  const { worldDir, emit } = inputs;
  const order = new StepOrder(inputs.picks, inputs.onPick, delays);
  const steps = new StepNumbers(worldDir);
  const sleeps = new StepNumbers(worldDir, 'wait_created');
  // The SDK's returnValue looks at the run once a second; the life knows at once when this life
  // ends it (run_completed or run_failed written), and asks then.
  let ended: () => void = () => undefined;
  let hasEnded = false;
  const runEnded = new Promise<void>((resolve) => (ended = resolve)).then(() => void (hasEnded = true));

  // streamFlushIntervalMs 0: the SDK batches a stream's chunks and writes them every 10 ms by default,
  // meant for worlds where each write is a network round trip; for a local world its docs advise 0.
  // Each chunk of a reply waited for the last one's flush: a never-killed life of T01 took 730 ms, 575 ms at 0.
  const world = createLocalWorld({ dataDir: worldDir, recoverActiveRuns: true, streamFlushIntervalMs: 0 });
  inputs.holdWorld?.(world);
  const events = world.events as unknown as EventsApi;
  const create = events.create.bind(events);
  const writes = new OrderedWrites();
  const emitFor = (data: Parameters<EventsApi['create']>[1]): void => {
    const stepId = data.correlationId ?? '';
    const stepName = shortStepName(data.eventData?.stepName);
    switch (data.eventType) {
      case 'run_created':
        emit({ kind: 'run-created' });
        break;
      case 'run_started':
        emit({ kind: 'run-started' });
        break;
      case 'step_created':
        if (steps.add(stepId)) emit({ kind: 'step-created', step: steps.numberOf(stepId), stepName });
        break;
      case 'step_started':
        emit({ kind: 'step-started', step: steps.numberOf(stepId), stepName });
        break;
      case 'step_completed': {
        const callId = inputs.callOfStep?.(stepId);
        emit({ kind: 'step-recorded', step: steps.numberOf(stepId), stepName, ...(callId === undefined ? {} : { callId }) });
        break;
      }
      case 'wait_created':
        if (sleeps.add(stepId)) emit({ kind: 'sleep', wait: `sleep ${sleeps.numberOf(stepId)}` });
        break;
      case 'wait_completed':
        emit({ kind: 'woke', wait: `sleep ${sleeps.numberOf(stepId)}` });
        break;
      case 'run_completed':
        emit({ kind: 'run-completed' });
        ended();
        break;
      case 'run_failed':
      case 'run_cancelled':
        ended();
        break;
    }
    const waitEvent = inputs.waits?.written(data);
    if (waitEvent !== undefined) emit(waitEvent);
  };
  // A life killed in killpoint's process at one of these events goes no further on the SDK's path
  // that wrote it (haltsWhenKilled), as a process killed there would not.
  events.create = (runId, data, params) =>
    writes.write(async () => {
      if (inputs.stepReturns && data.eventType === 'step_completed') {
        const halted = haltsWhenKilled(() => emit({ kind: 'step-returned', step: steps.numberOf(data.correlationId ?? ''), stepName: shortStepName(data.eventData?.stepName) }));
        if (halted !== undefined) return halted;
      }
      const written = await create(runId, data, params);
      return haltsWhenKilled(() => emitFor(data)) ?? written;
    }, data.eventType === 'step_created' ? data.correlationId : undefined);

  // The handlers before the world starts: its start re-enqueues the active run at once.
  let waitFailed: (error: unknown) => void = () => undefined;
  const waitsFailed = new Promise<never>((_, reject) => (waitFailed = reject));
  // A wait may fail (bad input) before the race below is made, while the run is being started.
  waitsFailed.catch(() => undefined);
  const waits = inputs.waits;
  // The run's own delays first: a hook's turn comes from outside, once the run has nothing left to do.
  order.onIdle = () => (hasEnded || delays.wakeFirstDue() ? undefined : void waits?.idle().catch(waitFailed));
  world.registerHandler('__wkf_workflow_', order.workflowHandler(inputs.handlers.workflows.POST));
  world.registerHandler('__wkf_step_', order.stepHandler(inputs.handlers.steps.POST, (stepId) => steps.gateName(stepId)));
  setWorld(world);

  const runs = (await world.runs.list({ resolveData: 'none' })).data;
  if (runs.length > 1) throw new NotOneRun(runs.length, worldDir);
  await world.start!();
  const runId = runs[0]?.runId ?? (await inputs.start());
  return Promise.race([getRun(runId).returnValue, runEnded.then(() => getRun(runId).returnValue), waitsFailed, ...(inputs.failed === undefined ? [] : [inputs.failed])]);
}
