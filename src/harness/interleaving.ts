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
