// What makes a kill in process as final as SIGKILL. A process killed right after its kill point
// runs nothing more: no finally, no flush, no write. A life run inside killpoint's own process is
// stopped instead by cutting it off from everything durable at once: each store it opened is
// closed (a write after that throws), the code that emitted the kill point gets an error it cannot
// pass, and every later event, pick or write it tries is refused. What it still runs in memory is
// abandoned: it can reach nothing that outlives it.

import { Shop } from '../../model/shop.js';

/** Thrown into a life's code at its kill point and at anything it tries after it. */
export class LifeKilled extends Error {
  constructor(what: string) {
    super(`${what}: the life was killed at its kill point; nothing it does now reaches a store`);
    this.name = 'LifeKilled';
  }
}

export class LifeFence {
  private readonly closers: (() => void)[] = [];
  private isKilled = false;

  constructor(private readonly what: string) {}

  get killed(): boolean {
    return this.isKilled;
  }

  /** A durable store the life opened: closed at the kill (or when the life ends), so nothing can change it after. */
  hold<T>(store: T, close: (store: T) => void): T {
    if (this.isKilled) {
      close(store);
      throw new LifeKilled(this.what);
    }
    this.closers.push(() => close(store));
    return store;
  }

  /** Throws once the life is killed: called before a write the fence cannot close (a file appended to). */
  assertAlive(): void {
    if (this.isKilled) throw new LifeKilled(this.what);
  }

  /** Cuts the life off: every store it holds closed, every later write refused. Killing twice is killing once. */
  kill(): void {
    if (this.isKilled) return;
    this.isKilled = true;
    for (const close of this.closers.splice(0)) {
      try {
        close();
      } catch {
        // A store the life had already closed itself: it is closed either way.
      }
    }
  }
}

/**
 * Runs `say` (a life's emit of one event). A life run in process is told of its kill by the
 * LifeKilled its emit throws: the caller, a handler or a save the engine awaits, then gets a
 * promise that never settles, so the engine goes no further on that path, as if its process had
 * been killed. Matched by name: a bundled life has its own copy of the class.
 */
export function haltsWhenKilled(say: () => void): Promise<never> | undefined {
  try {
    say();
  } catch (error) {
    if ((error as Error | undefined)?.name === 'LifeKilled') return new Promise<never>(() => undefined);
    throw error;
  }
  return undefined;
}

/** Awaits `say` as a life's step: in process, a kill there halts whoever awaits it (haltsWhenKilled). */
export async function sayHalting(say: () => void): Promise<void> {
  const halted = haltsWhenKilled(say);
  if (halted !== undefined) await halted;
}

/** Opens a life's shop through its fence: closed at the kill, so no write of the life lands after it. */
export function shopThrough(fence: LifeFence): (path: string) => Shop {
  return (path) => fence.hold(Shop.open(path), (shop) => shop.close());
}
