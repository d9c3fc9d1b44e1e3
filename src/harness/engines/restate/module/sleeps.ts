// A user's handler's durable sleeps (ctx.sleep), on killpoint's clock as far as Restate lets it.
// Restate's server owns the timer: the SDK journals a sleep command with its wake time (the SDK's
// clock plus the duration) and the server fires it by its own clock, the machine's, then sends the
// completion. killpoint cannot move the server's clock (a process of its own, on the machine's
// time), so the handler's ctx.sleep(duration) is asked of the SDK as a sleep of 0 ms: a sleep
// command all the same, journaled by the server, whose timer is due at once. What stays as it was
// is what makes a sleep durable: the command in the server's journal, the timer the server fires
// whether or not the service is alive, a recovery that replays the sleep instead of sleeping again
// (the SDK compares a replayed sleep by its name, not its wake time). What changes: the wake time
// journaled is the moment of the call, not an hour later; the agent's clock (user-module/
// life-clock.ts) still moves by the whole duration when the sleep ends, so the handler's own
// Date.now() after it reads the time it would have.
//
// Two kill points belong to each sleep, as to DBOS's and Vercel's:
//   sleep[sleep 0]   the handler asked for the sleep (its command is handed to the SDK, which sends
//                    it to the server with its next flush)
//   woke[sleep 0]    the timer's completion came back to the handler (in a recovery too, where
//                    the journal held it); the handler has not gone on past the sleep
// A sleep the journal already holds (a replay) has no sleep kill point: the command is journaled.

import type * as restate from '@restatedev/restate-sdk';
import type { EmitEvent } from '../../../process/child-main.js';
import { SLEEPING, WOKE } from '../../../check/event-kinds.js';
import type { LifeTime } from '../../../user-module/life-clock.js';

type Sleep = (duration: number | restate.Duration, name?: string) => restate.RestatePromise<void>;

const MS: Record<string, number> = { milliseconds: 1, seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/** A duration as the SDK takes it (ms, or { hours, minutes, ... }), in ms. */
function millisOf(duration: number | restate.Duration): number {
  if (typeof duration === 'number') return duration;
  return Object.entries(duration as Record<string, number | undefined>).reduce((sum, [unit, n]) => sum + (n ?? 0) * (MS[unit] ?? 0), 0);
}

/** The SDK says whether it is past the journal's replay (processing new commands): a fresh sleep, or a fresh completion. */
const processing = (rctx: restate.Context): boolean => (rctx as unknown as { isProcessing?: () => boolean }).isProcessing?.() ?? true;

/** ctx.sleep of one attempt, on killpoint's clock: `clock` is the life's (null outside every life: the SDK's own sleep). */
export function sleepOnLifeClock(rctx: restate.Context, clock: LifeTime | null, emit: EmitEvent): Sleep {
  let sleeps = 0;
  return (duration, name) => {
    const ms = millisOf(duration);
    // A duration the SDK refuses (negative) is refused by it, as ever.
    if (clock === null || !(ms >= 0)) return rctx.sleep(duration, name);
    const wait = `sleep ${sleeps++}`;
    const fresh = processing(rctx);
    const sleeping = rctx.sleep(0, name);
    if (fresh) emit({ kind: SLEEPING.kind, wait });
    return sleeping.map((value, failure) => {
      if (failure !== undefined) throw failure;
      if (processing(rctx)) {
        clock.advanceTo(clock.now() + ms);
        emit({ kind: WOKE.kind, wait });
      }
      return value;
    });
  };
}
