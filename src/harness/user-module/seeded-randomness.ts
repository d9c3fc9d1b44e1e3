// Randomness inside a life, seeded by the life's number: Math.random, crypto.randomUUID (node:crypto's
// and the global Web Crypto's) and crypto.getRandomValues (Web Crypto's: node:crypto's own is a
// getter Node does not let go of) give the same values to the
// same life of every schedule, the run never killed's first life included, so that an agent that
// makes ids or retries at random runs the same way twice and its verdicts repeat. Lives differ, as
// after a real restart: a key made at random inside a step is still new after a kill, and the
// check still finds the repeat it lets through.
//
// A life's process is seeded whole (seedRandomness). A life in killpoint's process (a thread of
// lives, or killpoint's own thread) is seeded in its async context alone (withSeededRandomness):
// what runs outside every life (killpoint's own ids) stays random, and a life killed there and
// abandoned draws from its own streams, never from those of the life that runs next.
//
// Its clock is seeded with it, the same way (life-clock.ts): a life's Date is its own too.

import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import seedrandom from 'seedrandom';
import { startThreadClock, withLifeClock } from './life-clock.js';
import { callerFrame } from './caller-frame.js';

type Fill = <T extends ArrayBufferView | null>(array: T) => T;

/** A life's own random functions, each drawing from a stream of its own. */
interface LifeRandomness {
  random: () => number;
  uuid: () => string;
  fill: Fill;
}

/** The random functions of life `lifeIndex` for the agent's code, or for the packages it runs on (`engine`), the same in every schedule. */
function lifeRandomness(lifeIndex: number, whose: 'agent' | 'engine' = 'agent'): LifeRandomness {
  // A stream of its own for each function: draws from one (a world's ids from getRandomValues, its
  // jitter from Math.random) leave the others' values alone.
  const stream = (name: string) => seedrandom(`killpoint life ${lifeIndex} ${whose === 'agent' ? '' : 'engine '}${name}`);
  const nextRandom = stream('Math.random');
  const filler = (next: () => number): Fill => (array) => {
    if (array !== null) {
      const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(next() * 256);
    }
    return array;
  };
  const uuidBytes = filler(stream('randomUUID'));
  const uuid = (): string => {
    const b = uuidBytes(new Uint8Array(16));
    b[6] = (b[6]! & 0x0f) | 0x40; // version 4
    b[8] = (b[8]! & 0x3f) | 0x80; // RFC 4122 variant
    const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
  return { random: () => nextRandom(), uuid, fill: filler(stream('getRandomValues')) };
}

const nodeCrypto = createRequire(import.meta.url)('node:crypto') as { randomUUID: () => string };
const web = globalThis.crypto as unknown as { randomUUID: () => string; getRandomValues: Fill };

/** A life's streams: its agent's draws apart from its engine's. */
interface LifeStreams {
  agent: LifeRandomness;
  engine: LifeRandomness;
}

function lifeStreams(lifeIndex: number): LifeStreams {
  return { agent: lifeRandomness(lifeIndex), engine: lifeRandomness(lifeIndex, 'engine') };
}

/** The life whose async context a call is made in (a life in killpoint's process). */
const lifeOfCall = new AsyncLocalStorage<LifeStreams>();
/** The life a whole thread belongs to (a life's process), or null. */
let lifeOfThread: LifeStreams | null = null;

/**
 * Whose a draw is: the engine's when the code that asks (the caller of `asked`) is an installed
 * package's (a file under node_modules, not killpoint's bundle of the user's module there), else
 * the agent's. An engine draws as often as its timing makes it (DBOS's queue poller makes an id
 * each poll): in a stream of its own, it never moves the values the agent's code gets.
 */
function streamOf(streams: LifeStreams, asked: (...args: never[]) => unknown): LifeRandomness {
  const asker = callerFrame(asked);
  return asker.includes('/node_modules/') && !asker.includes('/node_modules/.cache/killpoint/') ? streams.engine : streams.agent;
}

let installed = false;

/** Once per thread: each random function asks the life it is called in (else does what it did), and whose the draw is. */
function installLifeRandomness(): void {
  if (installed) return;
  installed = true;
  const own = { random: Math.random, uuid: nodeCrypto.randomUUID, webUuid: web.randomUUID.bind(web), fill: web.getRandomValues.bind(web) as Fill };
  const life = (): LifeStreams | null => lifeOfCall.getStore() ?? lifeOfThread;
  Math.random = function random(): number {
    const streams = life();
    return streams === null ? own.random() : streamOf(streams, random).random();
  };
  const uuidOf = (fallback: () => string) =>
    function randomUUID(): string {
      const streams = life();
      return streams === null ? fallback() : streamOf(streams, randomUUID).uuid();
    };
  nodeCrypto.randomUUID = uuidOf(own.uuid);
  web.randomUUID = uuidOf(own.webUuid);
  web.getRandomValues = function getRandomValues<T extends ArrayBufferView | null>(array: T): T {
    const streams = life();
    return streams === null ? own.fill(array) : streamOf(streams, getRandomValues).fill(array);
  };
  // A module that imported them by name (import { randomUUID } from 'node:crypto') follows when told to.
  syncBuiltinESMExports();
}

/** Seeds this thread's randomness and clock for life `lifeIndex` (a life's process, which is the life's alone); the function returned puts them back. */
export function seedRandomness(lifeIndex: number): () => void {
  installLifeRandomness();
  lifeOfThread = lifeStreams(lifeIndex);
  const stopClock = startThreadClock(lifeIndex);
  return () => {
    lifeOfThread = null;
    stopClock();
  };
}

/** Runs one life in killpoint's process with its randomness and clock seeded, in its async context alone. */
export function withSeededRandomness<T>(lifeIndex: number, life: () => Promise<T>): Promise<T> {
  installLifeRandomness();
  return lifeOfCall.run(lifeStreams(lifeIndex), () => withLifeClock(lifeIndex, life));
}
