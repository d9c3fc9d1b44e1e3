// The local world's queue delays, on killpoint's clock (life-clock.ts). A queue handler that answers
// { timeoutSeconds: N } asks the queue to deliver the same message again N seconds later: the
// workflow's handler when the run sleeps (sleep("5s"): wait_created written, resumeAt not yet
// reached) and a step's when it failed and will be retried. The local world waits for that in real
// time (a setTimeout), so a sign-up that slept 5 s slept 5 s in each of its lives.
//
// Here such an answer is held instead ("parked") and the delivery counts as no longer in flight;
// once nothing of the run is in flight (step-order.ts tells), the parked delivery due first
// (ties: the one parked first) has the clock moved to its due time and is answered
// { timeoutSeconds: 0 }, which the queue delivers again at once. The run ahead of it sees the
// time it would have seen had it waited: the runtime finds the sleep's resumeAt reached and writes
// wait_completed, the world finds a step's retryAfter passed.

import { currentLifeTime, type LifeTime } from '../../user-module/life-clock.js';
import type { LifeClock } from './life-clock.js';

interface Parked {
  dueMs: number;
  /** When it is due on the clock the user's steps read: its delay past the moment it was parked. */
  agentDueMs: number | undefined;
  messageId: string;
  answer: (response: Response) => void;
}

/** The message a delivery carries (the queue delivers it again under the same id). */
export function messageIdOf(request: Request): string {
  return request.headers.get('x-vqs-message-id') ?? '';
}

/** The delay a handler's answer asks the queue for, in seconds (0: none). */
export async function delayAskedFor(response: Response): Promise<number> {
  if (!response.ok) return 0;
  const body = (await response.clone().json().catch(() => undefined)) as { timeoutSeconds?: unknown } | undefined;
  const seconds = body?.timeoutSeconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}

export class QueueDelays {
  private parked: Parked[] = [];
  /** Messages let through and not yet delivered again: still in flight. */
  private readonly waking = new Set<string>();

  /** The clock the user's steps read (user-module/life-clock.ts), moved with the engine's: none outside a life. */
  private readonly agentClock: LifeTime | null = currentLifeTime();

  constructor(private readonly clock: LifeClock) {}

  /** Holds the delivery's answer until its turn: the answer the queue gets then. */
  park(request: Request, delaySeconds: number): Promise<Response> {
    const delayMs = delaySeconds * 1000;
    return new Promise((answer) => this.parked.push({ dueMs: this.clock.now() + delayMs, agentDueMs: this.agentClock === null ? undefined : this.agentClock.now() + delayMs, messageId: messageIdOf(request), answer }));
  }

  /** A delivery came in (the one let through, delivered again, among them). */
  arrived(request: Request): void {
    this.waking.delete(messageIdOf(request));
  }

  /** Whether a delivery let through has not come in yet. */
  inFlight(): boolean {
    return this.waking.size > 0;
  }

  /** Lets the parked delivery due first through, the clock moved to its due time: false when none is parked. */
  wakeFirstDue(): boolean {
    if (this.parked.length === 0) return false;
    const first = this.parked.reduce((a, b) => (b.dueMs < a.dueMs ? b : a));
    this.parked = this.parked.filter((p) => p !== first);
    this.clock.advanceTo(first.dueMs);
    if (first.agentDueMs !== undefined) this.agentClock?.advanceTo(first.agentDueMs);
    this.waking.add(first.messageId);
    first.answer(Response.json({ timeoutSeconds: 0 }));
    return true;
  }

  /** The run has ended: the parked deliveries are answered as done, as the world's would find nothing left to do. */
  releaseAll(): void {
    for (const p of this.parked) p.answer(Response.json({ ok: true }));
    this.parked = [];
  }
}
