// Parallel steps in a repeatable order. A reply's tool calls run as DBOS steps in Promise.all, so
// their events would come in whatever order the database's round trips happen to give (a
// prototype saw it change between runs). killpoint owns the tools, so it gates them, as it does
// for LangGraph (src/harness/interleaving.ts holds the gate both share), with one difference that
// DBOS needs: before a step runs its function DBOS asks the database whether the step is already
// recorded, and those answers arrive in no fixed order. So the gate knows the batch: it decides only
// when every call of the batch that has not finished is waiting at it (none is still on its way,
// none running). A call whose step was recorded in an earlier life never arrives: its step resolves
// without running and it finishes. A call that runs holds the gate from its release until its next
// pass, and after its last step until DBOS has recorded it (finish), so a step record never races
// another call.
//
// Which call goes is an interleaving pick, consumed in order across the whole run (each life gets
// the ones its predecessors left), taken only where more than one call waits; when the picks run
// out every waiting call that has not started goes first, then the waiting ones in call-id order.

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

  /** The call's step is over (recorded, or found recorded): it takes no more steps. */
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
