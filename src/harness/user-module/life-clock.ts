// The time inside a life, as the agent's code reads it: Date.now(), new Date() and Date() give the
// same times to the same life of every schedule, the run never killed's first life included, so
// that an agent that stamps what it does with the time (a receipt's date, an id made of the time)
// runs the same way twice and its verdicts repeat. Later lives read later times, as after a real
// restart: life n's clock starts n days after the first's (CLOCK_START_MS), and a sleep that ends
// on killpoint's clock (a DBOS sleep, a Vercel sleep) moves it forward to its end, at once.
//
// The clock of a life does not run with the machine's: it moves a millisecond at each reading (two
// readings are never the same moment, and code that waits for the clock to pass a time gets there),
// so the times read depend on what the agent did, never on how fast the machine did it.
//
// Whose reading it is decides which clock it gets, as for randomness (seeded-randomness.ts): the
// agent's code gets the life's clock; an installed package's (a file under node_modules, not
// killpoint's bundle of the user's module there), Node's own and killpoint's own get the machine's.
// The engines need a clock that runs: DBOS and Postgres time their leases, polls and time-outs by
// it, the Restate SDK its journal's timers, Vercel's world its leases and a step's duration; what
// they write of it is left out of every comparison (DBOS's rows digest does not read the times,
// Vercel's world digest drops them). An engine's clock may be moved ahead of the machine's
// (setEngineClock: Vercel's life clock, whose sleeps end when the queue lets them).
//
// A life's process is clocked whole (startThreadClock); a life in killpoint's process (a thread of
// lives, killpoint's own thread) in its async context alone (withLifeClock), as its randomness is.

import { AsyncLocalStorage } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';
import { callerFrame } from './caller-frame.js';

/** The moment the first life's clock starts at: fixed, so that a replay reads the times its check read. */
export const CLOCK_START_MS = Date.UTC(2030, 0, 1);
/** How much later each life's clock starts than its predecessor's: a restart a day later. */
export const LIFE_GAP_MS = 24 * 60 * 60 * 1000;
/** How far a life's clock moves at each reading of the agent's. */
const TICK_MS = 1;

/** One life's clock, as the agent's code reads it. */
export class LifeTime {
  private ms: number;

  constructor(lifeIndex: number) {
    this.ms = CLOCK_START_MS + lifeIndex * LIFE_GAP_MS;
  }

  /** A reading by the agent's code: the clock ticks. */
  read(): number {
    const ms = this.ms;
    this.ms += TICK_MS;
    return ms;
  }

  /** The time now, without a reading (killpoint's own: a sleep's start). */
  now(): number {
    return this.ms;
  }

  /** Moves the clock forward to `ms`, never back: a sleep that ends on killpoint's clock. */
  advanceTo(ms: number): void {
    this.ms = Math.max(this.ms, ms);
  }
}

/**
 * The thread's clocks, kept once per thread whatever copies of this file it loads: a life bundled
 * with the user's module (user-module/bundle.ts) has its own copy, and must find the life the copy
 * killpoint runs it under started.
 */
interface ThreadClocks {
  RealDate: DateConstructor;
  /** The clock of an installed package's, Node's and killpoint's own readings: the machine's unless an engine's life moved it ahead. */
  engineClock: (() => number) | null;
  lifeOfCall: AsyncLocalStorage<LifeTime>;
  lifeOfThread: LifeTime | null;
  dateInstalled: boolean;
}

const THREAD_CLOCKS = Symbol.for('killpoint.life-clock');
const clocks: ThreadClocks = ((globalThis as { [THREAD_CLOCKS]?: ThreadClocks })[THREAD_CLOCKS] ??= {
  RealDate: globalThis.Date,
  engineClock: null,
  lifeOfCall: new AsyncLocalStorage<LifeTime>(),
  lifeOfThread: null,
  dateInstalled: false,
});
const RealDate = clocks.RealDate;

/** The machine's clock, whoever asks. */
export const realNow = (): number => RealDate.now(); // real clock: this is it

const engineNow = (): number => (clocks.engineClock ?? realNow)();

/** Sets the clock installed packages read on this thread (null: the machine's again). */
export function setEngineClock(clock: (() => number) | null): void {
  installDate();
  clocks.engineClock = clock;
}

/** The clock of the life a call is made in, or null outside every life. */
export function currentLifeTime(): LifeTime | null {
  return clocks.lifeOfCall.getStore() ?? clocks.lifeOfThread;
}

/** killpoint's own files (its sources, its build): its readings are the machine's. */
const KILLPOINT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OWN = ['src/', 'dist/', 'bin/'].map((dir) => KILLPOINT_ROOT + dir);

/** Whether the code that asks (the caller of `asked`) is the agent's: a file of its own, not an installed package's, Node's or killpoint's. */
function askedByAgent(asked: (...args: never[]) => unknown): boolean {
  const frame = callerFrame(asked);
  const file = /\((?:file:\/\/)?(\/[^)]*)\)$|at (?:file:\/\/)?(\/\S*)$/.exec(frame.trim());
  const path = file?.[1] ?? file?.[2];
  if (path === undefined) return false;
  if (path.includes('/node_modules/')) return path.includes('/node_modules/.cache/killpoint/');
  return !OWN.some((own) => path.startsWith(own));
}

function timeFor(asked: (...args: never[]) => unknown): number {
  const life = currentLifeTime();
  return life !== null && askedByAgent(asked) ? life.read() : engineNow();
}

/** Once per thread: Date asks the life it is called in (else the engine's clock), and whose reading it is. */
function installDate(): void {
  if (clocks.dateInstalled) return;
  clocks.dateInstalled = true;
  function now(): number {
    return timeFor(now);
  }
  const handler: ProxyHandler<DateConstructor> = {
    construct: function construct(target, args, newTarget) {
      return Reflect.construct(target, args.length === 0 ? [timeFor(construct)] : args, newTarget) as object;
    },
    // Date() called without new is the time as a string.
    apply: function apply() {
      return new RealDate(timeFor(apply)).toString();
    },
    get: (target, key, receiver) => (key === 'now' ? now : Reflect.get(target, key, receiver)),
  };
  globalThis.Date = new Proxy(RealDate, handler);
}

/** Clocks this thread for life `lifeIndex` (a life's process, which is the life's alone); the function returned puts it back. */
export function startThreadClock(lifeIndex: number): () => void {
  installDate();
  clocks.lifeOfThread = new LifeTime(lifeIndex);
  return () => {
    clocks.lifeOfThread = null;
  };
}

/** Runs one life in killpoint's process on its own clock, in its async context alone. */
export function withLifeClock<T>(lifeIndex: number, life: () => Promise<T>): Promise<T> {
  installDate();
  return clocks.lifeOfCall.run(new LifeTime(lifeIndex), life);
}
