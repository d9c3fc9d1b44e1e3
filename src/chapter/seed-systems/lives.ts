// The kill machinery for the small seed systems: a life is a generator of RunEvents (the same
// events as the Lantern agent's), and a kill schedule holds one kill point per life. Life i dies
// right after its event kills[i] (-1: before its first); the generator is dropped, not closed,
// so nothing of the life runs after the kill. The life after the last kill runs to its end.

import type { EventKind, IntervalKind, RunEvent } from '../../check/events.js';

/** A life never needs more events than this; more means a runaway loop. */
const MAX_EVENTS_PER_LIFE = 10_000;

export interface SeedLife {
  events: RunEvent[];
  killedAfter: number | null;
}

export function runSeedLives(life: (lifeIndex: number) => Generator<RunEvent, void, void>, kills: readonly number[]): SeedLife[] {
  const lives: SeedLife[] = [];
  for (let lifeIndex = 0; lifeIndex <= kills.length; lifeIndex++) {
    const killAfter = lifeIndex < kills.length ? kills[lifeIndex]! : null;
    const record: SeedLife = { events: [], killedAfter: null };
    lives.push(record);
    if (killAfter !== null && killAfter < 0) {
      record.killedAfter = -1;
      continue;
    }
    const events = life(lifeIndex);
    for (;;) {
      const step = events.next();
      if (step.done) break;
      record.events.push(step.value);
      if (record.events.length > MAX_EVENTS_PER_LIFE) throw new Error(`life ${lifeIndex}: more than ${MAX_EVENTS_PER_LIFE} events`);
      if (step.value.index === killAfter) {
        record.killedAfter = killAfter;
        break;
      }
    }
    if (record.killedAfter === null) break;
  }
  return lives;
}

/** Virtual time and event numbering of one life. */
export class SeedClock {
  private nowMs = 0;
  private count = 0;

  event(kind: EventKind, waitMs: number, interval: IntervalKind, fields: Partial<RunEvent> = {}): RunEvent {
    this.nowMs += waitMs;
    return { ...fields, index: this.count++, kind, atMs: this.nowMs, interval };
  }
}
