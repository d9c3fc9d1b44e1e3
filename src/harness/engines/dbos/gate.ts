// Parallel steps in a repeatable order. A reply's tool calls run as DBOS steps in Promise.all, so
// their events would come in whatever order the database's round trips happen to give (a
// prototype saw it change between runs). killpoint owns the tools, so it gates them, as it does
// for LangGraph (src/harness/engines/langgraph/gate.ts), with one difference that DBOS needs: before a
// step runs its function DBOS asks the database whether the step is already recorded, and those
// answers arrive in no fixed order. So the gate knows the batch: it decides only when every call
// of the batch that has not finished is waiting at it (none is still on its way, none running). A
// call whose step was recorded in an earlier life never arrives: its step resolves without running
// and it finishes. A call that runs holds the gate from its release until its next pass, and after
// its last step until DBOS has recorded it (finish), so a step record never races another call.
//
// Which call goes is an interleaving pick, consumed in order across the whole run (each life gets
// the ones its predecessors left), taken only where more than one call waits; when the picks run
// out every waiting call that has not started goes first, then the waiting ones in call-id order.

export class BatchGate {
  private readonly unfinished = new Set<string>();
  private readonly waiting = new Map<string, () => void>();
  private readonly started = new Set<string>();
  private running: string | null = null;
  private next = 0;

  constructor(
    private readonly picks: readonly number[],
    /** Told of every pick as it is taken. */
    private readonly onPick: (pick: number, width: number) => void = () => undefined,
  ) {}

  /** A batch of calls begins: the gate waits for each of them (or its finish) before deciding. */
  expect(callIds: readonly string[]): void {
    for (const id of callIds) this.unfinished.add(id);
  }

  /** Resolves when this call may take its next step. */
  pass(callId: string): Promise<void> {
    if (!this.unfinished.has(callId)) throw new Error(`gate: call ${callId} passes without being expected`);
    return new Promise((resolve) => {
      this.waiting.set(callId, resolve);
      if (this.running === callId) this.running = null;
      this.decide();
    });
  }

  /** The call's step is over (recorded, or found recorded): it takes no more steps. */
  finish(callId: string): void {
    this.unfinished.delete(callId);
    this.waiting.delete(callId);
    if (this.running === callId) this.running = null;
    this.decide();
  }

  private decide(): void {
    if (this.running !== null || this.waiting.size === 0) return;
    for (const id of this.unfinished) if (!this.waiting.has(id)) return; // one is still on its way
    const waiting = [...this.waiting.keys()].sort();
    let index = 0;
    if (waiting.length > 1) {
      const notStarted = waiting.findIndex((id) => !this.started.has(id));
      index = this.next < this.picks.length ? this.picks[this.next++]! % waiting.length : Math.max(0, notStarted);
      this.onPick(index, waiting.length);
    }
    const chosen = waiting[index]!;
    const resolve = this.waiting.get(chosen)!;
    this.waiting.delete(chosen);
    this.started.add(chosen);
    this.running = chosen;
    resolve();
  }
}
