// The interleaving rule: which of several parallel tool calls goes next. A run is a series of lives,
// and a life that is killed and started again must repeat its events exactly, so the order of
// parallel calls cannot be left to chance: it is chosen by interleaving picks, the same way in
// killpoint's own runner and in the gates that order a real engine's calls. Picks are consumed in
// order across the whole run (each life gets the ones its predecessors left); a pick is taken only
// where more than one call can go (the caller decides where that is), and a pick p chooses p % width;
// once the picks run out, the caller's default applies. Every pick taken is recorded with how many
// calls it chose among, so that an explorer can enumerate every order from `taken` and `widths`.

/** Interleaving picks, consumed in order across the whole run. */
export class InterleavingPicks {
  private next = 0;
  /** The index each choice went to. */
  readonly taken: number[] = [];
  /** How many calls could go at each choice: an exhaustive explorer branches on these. */
  readonly widths: number[] = [];

  constructor(private readonly picks: readonly number[] = []) {}

  /** Chooses among `width` calls (the next pick, wrapped round; `defaultIndex` once they run out) and records the choice. */
  choose(width: number, defaultIndex: number): number {
    const index = this.next < this.picks.length ? this.picks[this.next++]! % width : defaultIndex;
    this.taken.push(index);
    this.widths.push(width);
    return index;
  }
}

/**
 * Parallel tool calls of a real engine in a repeatable order. killpoint owns the tools, so it gates
 * them: before each of its steps a call waits at the gate (`pass`), and the gate lets exactly one
 * call take one step at a time. It decides when the call it let go has come back (or finished) and
 * the engine's subclass says the moment has come (`kick`, `mayDecide`). Which waiting call goes is an
 * interleaving pick, taken only where more than one call waits; when the picks run out every waiting
 * call that has not started goes first, then the waiting ones in call-id order.
 */
export abstract class ToolCallGate {
  protected readonly waiting = new Map<string, () => void>();
  private readonly started = new Set<string>();
  protected running: string | null = null;
  private readonly interleaving: InterleavingPicks;

  constructor(
    picks: readonly number[],
    /** Told of every pick as it is taken. */
    private readonly onPick: (pick: number, width: number) => void = () => undefined,
  ) {
    this.interleaving = new InterleavingPicks(picks);
  }

  /** The picks taken so far. */
  get taken(): number[] {
    return this.interleaving.taken;
  }

  /** How many calls each pick chose among. */
  get widths(): number[] {
    return this.interleaving.widths;
  }

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

  /** Something changed at the gate: decide now or later (by calling `decide`). */
  protected abstract kick(): void;

  /** Whether the gate may decide, beyond no call running and some waiting. */
  protected mayDecide(): boolean {
    return true;
  }

  /** Lets one waiting call take its next step, if none is running. */
  protected decide(): void {
    if (this.running !== null || this.waiting.size === 0 || !this.mayDecide()) return;
    const waiting = [...this.waiting.keys()].sort();
    let index = 0;
    if (waiting.length > 1) {
      const notStarted = waiting.findIndex((id) => !this.started.has(id));
      index = this.interleaving.choose(waiting.length, Math.max(0, notStarted));
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

/**
 * A gate that decides once the event loop has settled (two turns) after the call it let go came
 * back, unless a decision is already due: by then every call the engine started together has
 * reached the gate, and the engine's own follow-up work (a finished task's save) is done. For
 * engines whose parallel calls all start in one turn (LangGraph's tasks, a user's DBOS steps).
 */
export class SettlingGate extends ToolCallGate {
  private scheduled = false;

  protected override kick(): void {
    if (this.scheduled || this.running !== null) return;
    this.scheduled = true;
    setImmediate(() =>
      setImmediate(() => {
        this.scheduled = false;
        this.decide();
      }),
    );
  }
}

/**
 * A gate that knows the batch: it decides only when every call of the batch that has not finished
 * waits at it (none is still on its way, none running). For engines whose parallel steps reach the
 * gate in no fixed order, because each first waits on its durable store (DBOS asks its database
 * whether the step is already recorded; Restate's steps wait on the server's acknowledgements). A
 * call whose step an earlier life recorded never arrives: its step resolves without running and it
 * finishes. A call that runs holds the gate from its release until its next pass, and after its
 * last step until the engine has recorded it (finish), so a step record never races another call.
 */
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
