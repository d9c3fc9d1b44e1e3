// An in-process life is let go, not torn down: whatever a user's graph opened in its life (a
// database of its own in the life's private folder) is closed by SIGKILL in a process, and here
// only when the garbage collector finalizes it. Nothing asks the collector to run because file
// descriptors pile up, and a long check would run out of them (600 lives of the support agent's
// graph held 584 until a collection). So every so many lives, a full collection is asked for.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null = null;
let livesSince = 0;
let every = 128;

/** The collector, reached as --expose-gc would make it (the flag set now, read in a new context). */
function collector(): () => void {
  if (collect === null) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  return collect;
}

/** Called once per in-process life that ended: the handles of the abandoned ones are let go every `every` lives. */
export function lifeAbandoned(): void {
  livesSince += 1;
  if (livesSince < every) return;
  livesSince = 0;
  collector()();
}

/** How many lives between collections, as set here (life-threads.ts sends killpoint's own to its threads with each job). */
export function livesBetweenCollections(): number {
  return every;
}

/** For tests: how many lives between collections (returns the previous value). */
export function collectEveryLives(lives: number): number {
  const previous = every;
  every = lives;
  livesSince = 0;
  return previous;
}
