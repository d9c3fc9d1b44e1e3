// --redeliver for an engine whose front end delivers into what the run reads (DBOS's messages on a
// topic, a Vercel hook's payloads, a Restate awakeable's or promise's completion): a recovery whose
// predecessor handed a turn it never saw acknowledged delivers it again, once, as that front end
// would (user-module/turns.ts), says so (redeliver[approval#1], a kill point), and, once the run
// ended, says what the engine saw of it (redelivered[approval#1]): the wait that took it, if one
// did, and the turns of the list never handed. What that means is judged in one place,
// check/redelivery-effect.ts; the engine only tells where the second delivery went.

import { REDELIVERY_SEEN, TURN_REDELIVERED } from '../check/event-kinds.js';
import { sayHalting } from '../in-process/fence.js';
import type { EmitEvent } from '../process/child-main.js';
import type { Redelivery, Turns } from './turns.js';

export class SecondDelivery {
  /** The turn this life delivered again, if it did. */
  private turn: Redelivery | undefined;
  /** The wait that took it, once the engine saw one take it. */
  private takenBy: string | undefined;

  constructor(
    private readonly turns: Turns,
    private readonly emit: EmitEvent,
  ) {}

  /** The turn to deliver again in this life (undefined: none), said before the engine delivers it. */
  async take(): Promise<Redelivery | undefined> {
    const turn = this.turns.takeRedelivery();
    if (turn === undefined) return undefined;
    this.turn = turn;
    await sayHalting(() => this.emit({ kind: TURN_REDELIVERED.kind, wait: turn.name }));
    return turn;
  }

  /**
   * The engine saw the run take the second delivery of wait `turnId`'s turn (this life's, or one an
   * earlier life delivered) at the wait `id` at `place`: recorded before the run goes on with it.
   */
  takenAt(id: string, place: string, turnId: string): void {
    const name = this.turns.secondTakenBy(id, place, turnId);
    if (turnId === this.turn?.id) this.takenBy = name;
  }

  /** The run ended: where this life's second delivery went, for check/ to judge. */
  async ended(): Promise<void> {
    const turn = this.turn;
    if (turn === undefined) return;
    this.turn = undefined;
    const answered = this.takenBy === undefined ? {} : { answered: this.takenBy };
    await sayHalting(() => this.emit({ kind: REDELIVERY_SEEN.kind, wait: turn.name, ...answered, turnsLeft: this.turns.turnsLeft() }));
  }
}
