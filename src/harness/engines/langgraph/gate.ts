// Parallel tool calls in a repeatable order. LangGraph runs a reply's calls concurrently (ToolNode:
// all at once in one task; createReactAgent v2: one task each), so their events would come in the
// order the event loop happens to give. killpoint owns the tools, so it gates them: before each of
// its steps (start, the shop's transaction, the result) a call waits at the gate, and the gate lets
// exactly one call take one step at a time. It decides only once the call it let go has come back
// (or finished) and the event loop has settled (two turns, so that LangGraph's own follow-up work,
// such as saving a finished task's writes, happens before the next decision).
//
// Which call goes is an interleaving pick, as in killpoint's own runner: picks are consumed in
// order across the whole run (each life gets the ones its predecessors left), a pick is taken only
// where more than one call waits, and when the picks run out every waiting call that has not
// started goes first, then the waiting ones in call-id order. The picks taken and how many calls
// each chose among are reported, so the explorer can enumerate every order.

export class Gate {
  private readonly waiting = new Map<string, () => void>();
  private readonly started = new Set<string>();
  private running: string | null = null;
  private scheduled = false;
  private next = 0;
  readonly taken: number[] = [];
  readonly widths: number[] = [];

  constructor(
    private readonly picks: readonly number[],
    /** Told of every pick as it is taken. */
    private readonly onPick: (pick: number, width: number) => void = () => undefined,
  ) {}

  /** Resolves when this call may take its next step. */
  pass(callId: string): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.set(callId, resolve);
      if (this.running === callId) this.running = null;
      this.kick();
    });
  }

  /** The call took its last step. */
  finish(callId: string): void {
    if (this.running === callId) this.running = null;
    this.kick();
  }

  private kick(): void {
    if (this.scheduled || this.running !== null) return;
    this.scheduled = true;
    setImmediate(() => setImmediate(() => this.decide()));
  }

  private decide(): void {
    this.scheduled = false;
    if (this.running !== null || this.waiting.size === 0) return;
    const waiting = [...this.waiting.keys()].sort();
    let index = 0;
    if (waiting.length > 1) {
      const notStarted = waiting.findIndex((id) => !this.started.has(id));
      index = this.next < this.picks.length ? this.picks[this.next++]! % waiting.length : Math.max(0, notStarted);
      this.taken.push(index);
      this.widths.push(waiting.length);
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
