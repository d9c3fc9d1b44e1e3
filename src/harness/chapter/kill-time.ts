// Maps a kill *time* to a kill point. Events at or before time t have happened; the kill lands
// in the interval of the first event after t, so the process dies right after the event before it.

import type { IntervalKind, RunEvent } from '../check/events.js';

export interface TimedKill {
  /** The kill point: the process dies right after this event (-1: before the first). */
  killPoint: number;
  /** What the process was doing when the kill landed (the interval of the event in progress). */
  interval: IntervalKind | 'after-end';
}

export function killAtTime(events: readonly RunEvent[], tMs: number): TimedKill {
  // Binary search for the first event with atMs > tMs; events are in time order.
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.atMs > tMs) hi = mid;
    else lo = mid + 1;
  }
  if (lo === events.length) return { killPoint: events.length - 1, interval: 'after-end' };
  return { killPoint: lo - 1, interval: events[lo]!.interval };
}

/** The run's virtual length: the time of its last event. */
export function runDurationMs(events: readonly RunEvent[]): number {
  return events.length === 0 ? 0 : events[events.length - 1]!.atMs;
}
