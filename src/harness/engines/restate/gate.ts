// Parallel steps in a repeatable order. A reply's tool calls run as `ctx.run` steps side by side,
// so their events would come in whatever order the server's acknowledgements happen to give.
// killpoint owns the tools, so it gates them with the one rule (src/harness/interleaving.ts): the
// gate knows the batch and decides only when every call of the batch that has not finished waits
// at it. A call whose step the journal holds never arrives (its ctx.run resolves without running)
// and finishes. A call that runs holds the gate from its release until its next pass, and after
// its last step until the server has journaled it (finish), so a journal acknowledgement never
// races another call's events.
//
// Which call goes is an interleaving pick, consumed in order across the whole run; when the picks
// run out every waiting call that has not started goes first, then the waiting ones in call-id order.

import { ToolCallGate } from '../../interleaving.js';

export class BatchGate extends ToolCallGate {
  private readonly unfinished = new Set<string>();

  /** A batch of calls begins: the gate waits for each of them (or its finish) before deciding. */
  expect(callIds: readonly string[]): void {
    for (const id of callIds) this.unfinished.add(id);
  }

  /** Resolves when this call may take its next step. */
  override pass(callId: string): Promise<void> {
    if (!this.unfinished.has(callId)) throw new Error(`gate: call ${callId} passes without being expected`);
    return super.pass(callId);
  }

  /** The call's step is over (journaled, or found journaled): it takes no more steps. */
  override finish(callId: string): void {
    this.unfinished.delete(callId);
    this.waiting.delete(callId);
    super.finish(callId);
  }

  /** Decides at once: the batch, not the event loop, says when. */
  protected override kick(): void {
    this.decide();
  }

  /** Only once every unfinished call of the batch waits here (none is still on its way). */
  protected override mayDecide(): boolean {
    for (const id of this.unfinished) if (!this.waiting.has(id)) return false;
    return true;
  }
}
