// killpoint's clock inside a life of a Vercel workflow: Date.now() and `new Date()` as the SDK,
// the local world and the steps see them (the workflow function has its own, made of the events'
// times by the SDK's sandbox). It is the machine's clock plus an offset that only grows, so it
// never goes back; two things move the offset forward:
//   - a delivery the queue would have held back in real time (queue-delays.ts: a sleep() not yet
//     due, a step's retry) is let through once nothing else of the run is in flight, with the
//     clock set to the moment it was due: sleep("5s") and sleep("1h") both take no time at all;
//   - a life that resumes a run starts at least as late as the latest event its predecessor
//     wrote, as after a real restart, however far its sleeps had moved that clock: the world's
//     event ids (ULIDs, sorted by time) keep their order, and a sleep already over stays over.
// Why this is deterministic: a delay ends only when the run is otherwise idle and only the
// earliest delay ends first, so where a sleep wakes among the run's events does not depend on how
// fast the machine is (before, a sleep ended when the machine's clock said so). Only a sleep that
// races work of the run still in flight (a step running longer than the sleep) can end on the
// machine's clock, as it would in production. The times the world writes are not compared (the
// world's digest drops them: world-digest.ts).
//
// This is the engine's clock of the life (user-module/life-clock.ts: setEngineClock): what the
// SDK, the world and Node read. The user's steps read the life's own clock, which starts at the
// same moment in every schedule; a sleep the queue lets through moves it forward by the delay the
// runtime asked for (queue-delays.ts), so a step after sleep("1h") reads an hour later.
//
// Only where a life has its thread to itself (a life's process, a thread of lives): the engine's
// clock is the thread's, put back when the life ends.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { realNow, setEngineClock } from '../../user-module/life-clock.js';

export interface LifeClock {
  now(): number;
  /** Moves the clock forward to `ms` (never back). */
  advanceTo(ms: number): void;
  /** Puts the thread's own clock back. */
  restore(): void;
}

/** The latest createdAt of the world's events (0 when there are none): what a predecessor's clock had reached. */
export function latestEventTime(worldDir: string): number {
  const dir = join(worldDir, 'events');
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    const createdAt = (JSON.parse(readFileSync(join(dir, name), 'utf8')) as { createdAt?: unknown }).createdAt;
    const ms = typeof createdAt === 'string' ? Date.parse(createdAt) : NaN;
    if (Number.isFinite(ms) && ms > latest) latest = ms;
  }
  return latest;
}

/** Installs the clock as this thread's engine clock, starting no earlier than `notBeforeMs`. */
export function installLifeClock(notBeforeMs: number): LifeClock {
  // real clock: the SDK and the local world time their own work (a lease, a step's duration) and
  // need a clock that runs; what they write of it is left out of every digest (world-digest.ts), and
  // where a sleep wakes among the run's events is decided by the queue (queue-delays.ts), not by it.
  // A millisecond past what was recorded, so that a new event sorts after the last one.
  let offsetMs = Math.max(0, notBeforeMs + 1 - realNow());
  const now = (): number => realNow() + offsetMs; // real clock: as above
  setEngineClock(now);
  return {
    now,
    advanceTo: (ms) => {
      offsetMs = Math.max(offsetMs, ms - realNow()); // real clock: the offset is kept against it (above)
    },
    restore: () => setEngineClock(null),
  };
}
