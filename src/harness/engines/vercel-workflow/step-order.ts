// Steps in a repeatable order. The local world runs a run's work in the life's own process: the
// workflow function (a queue message per invocation) and each step (a message per step), every
// message handed to its handler as soon as it is queued. A reply's parallel tool calls are steps
// queued together, so their events would come in whatever order the handlers' file writes happen
// to give, and two invocations of the workflow racing each other write the next step twice (seen:
// step_created written by both). killpoint registers the handlers, so it orders them: one step
// at a time, each step whole (its step_started, its function, its step_completed), and none while
// an invocation of the workflow is in flight (every step an invocation queues has arrived by the
// time it returns, and a step's own invocation of the workflow runs before the next step). Which
// waiting step goes is an interleaving pick (src/harness/interleaving.ts: the one rule), taken
// only where more than one waits; when the picks run out, the step the workflow created first.
//
// Once an invocation of the workflow returns with nothing left in flight (no invocation, no step
// arriving, waiting or running), the run is suspended on something outside it (a hook, a sleep)
// or has ended: `onIdle` is told, after the event loop has settled, if it still holds. A delivery
// whose answer asks the queue to deliver it again later (a sleep not yet over, a step's retry) is
// parked (queue-delays.ts) and not in flight; one let through is, until it comes in again.

import { ToolCallGate } from '../../interleaving.js';
import { delayAskedFor, type QueueDelays } from './queue-delays.js';

/** A queue handler of the local world: a request in, a response out. */
export type QueueHandler = (request: Request) => Promise<Response>;

export class StepOrder extends ToolCallGate {
  private workflowsInFlight = 0;
  /** Step requests whose step is not yet known (their body is being read). */
  private arriving = 0;
  /** Told when nothing of the run is in flight (world-run.ts: a user's workflow waiting on a hook). */
  onIdle: (() => void) | undefined;

  constructor(picks: number[], onPick: (pick: number, width: number) => void, private readonly delays: QueueDelays) {
    super(picks, onPick);
  }

  /** The workflow's handler: while an invocation runs, no step starts. */
  workflowHandler(handler: QueueHandler): QueueHandler {
    return async (request) => {
      this.delays.arrived(request);
      this.workflowsInFlight++;
      let delaySeconds = 0;
      let response: Response;
      try {
        response = await handler(request);
        delaySeconds = await delayAskedFor(response);
      } finally {
        this.workflowsInFlight--;
        this.kick();
        this.tellWhenIdle();
      }
      return delaySeconds > 0 ? this.delays.park(request, delaySeconds) : response;
    };
  }

  private idle(): boolean {
    return this.workflowsInFlight === 0 && this.arriving === 0 && this.waiting.size === 0 && this.running === null && !this.delays.inFlight();
  }

  /** Two turns of the event loop: whatever the invocation set off (a queued message) has started by then. */
  private tellWhenIdle(): void {
    if (this.onIdle === undefined || !this.idle()) return;
    setImmediate(() => setImmediate(() => (this.idle() ? this.onIdle?.() : undefined)));
  }

  /** The steps' handler: each step waits for its turn, named by `nameOf` (its step id in, a name that sorts in creation order out). */
  stepHandler(handler: QueueHandler, nameOf: (stepId: string) => string): QueueHandler {
    return async (request) => {
      // Counted before the first await: the invocation that queued it has not returned yet.
      this.delays.arrived(request);
      this.arriving++;
      let name: string;
      try {
        const message = (await request.clone().json()) as { stepId?: unknown };
        if (typeof message.stepId !== 'string') throw new Error('killpoint: a step message without a step id');
        name = nameOf(message.stepId);
      } finally {
        this.arriving--;
      }
      await this.pass(name);
      let delaySeconds = 0;
      let response: Response;
      try {
        response = await handler(request);
        delaySeconds = await delayAskedFor(response);
      } finally {
        this.finish(name);
        this.tellWhenIdle();
      }
      return delaySeconds > 0 ? this.delays.park(request, delaySeconds) : response;
    };
  }

  protected override kick(): void {
    this.decide();
  }

  protected override mayDecide(): boolean {
    return this.workflowsInFlight === 0 && this.arriving === 0;
  }
}
