// Randomness inside a life, seeded by the life's number: Math.random, crypto.randomUUID (node:crypto's
// and the global Web Crypto's) and crypto.getRandomValues (Web Crypto's: node:crypto's own is a
// getter Node does not let go of) give the same values to the
// same life of every schedule, the run never killed's first life included, so that an agent that
// makes ids or retries at random runs the same way twice and its verdicts repeat. Lives differ, as
// after a real restart: a key made at random inside a step is still new after a kill, and the
// check still finds the repeat it lets through.
//
// Only where a life has its thread to itself: a life's process, or a thread of lives (never
// killpoint's own thread, whose ids must stay random).

import { createRequire, syncBuiltinESMExports } from 'node:module';
import seedrandom from 'seedrandom';

type Fill = <T extends ArrayBufferView | null>(array: T) => T;

/** Seeds this thread's randomness for life `lifeIndex`; the function returned puts it back. */
export function seedRandomness(lifeIndex: number): () => void {
  // A stream of its own for each function: an engine's draws from one (a world's ids from
  // getRandomValues, its jitter from Math.random, as many as its timing makes) leave the others'
  // values to the agent's calls alone.
  const stream = (name: string) => seedrandom(`killpoint life ${lifeIndex} ${name}`);
  const nextRandom = stream('Math.random');
  const nextUuid = stream('randomUUID');
  const nextValues = stream('getRandomValues');
  const nodeCrypto = createRequire(import.meta.url)('node:crypto') as { randomUUID: () => string };
  const web = globalThis.crypto as unknown as { randomUUID: () => string; getRandomValues: Fill };
  const saved = { random: Math.random, uuid: nodeCrypto.randomUUID, webUuid: web.randomUUID, webValues: web.getRandomValues };
  const filler = (next: () => number): Fill => (array) => {
    if (array !== null) {
      const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(next() * 256);
    }
    return array;
  };
  const fill = filler(nextValues);
  const uuidBytes = filler(nextUuid);
  const uuid = (): string => {
    const b = uuidBytes(new Uint8Array(16));
    b[6] = (b[6]! & 0x0f) | 0x40; // version 4
    b[8] = (b[8]! & 0x3f) | 0x80; // RFC 4122 variant
    const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
  Math.random = () => nextRandom();
  nodeCrypto.randomUUID = uuid;
  web.randomUUID = uuid;
  web.getRandomValues = fill;
  // A module that imported them by name (import { randomUUID } from 'node:crypto') follows when told to.
  syncBuiltinESMExports();
  return () => {
    Math.random = saved.random;
    nodeCrypto.randomUUID = saved.uuid;
    web.randomUUID = saved.webUuid;
    web.getRandomValues = saved.webValues;
    syncBuiltinESMExports();
  };
}

/** Runs one life on a thread of lives with its randomness seeded, put back when it ends. */
export async function withSeededRandomness<T>(lifeIndex: number, life: () => Promise<T>): Promise<T> {
  const restore = seedRandomness(lifeIndex);
  try {
    return await life();
  } finally {
    restore();
  }
}
