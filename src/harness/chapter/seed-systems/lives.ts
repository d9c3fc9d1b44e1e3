// The small seed systems' lives: a life is a generator of RunEvents (the same events as the Lantern
// agent's), run under a kill schedule by the one life loop (src/harness/life-loop.ts).

import type { EventKind, IntervalKind, RunEvent } from '../../check/events.js';
import type { LifeRecord } from '../../check/outcome.js';
import { driveLife, runLives } from '../../life-loop.js';

export type SeedLife = LifeRecord;

/** Every life of a seed system under a kill schedule, through the one life loop. */
export function runSeedLives(life: (lifeIndex: number) => Generator<RunEvent, void, void>, kills: readonly number[]): SeedLife[] {
  return runLives(kills, (lifeIndex, killAfter) => driveLife(lifeIndex, killAfter, () => life(lifeIndex)).record);
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
