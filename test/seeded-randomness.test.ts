// Randomness seeded per life in killpoint's process (user-module/seeded-randomness.ts): a life's
// Math.random, randomUUID and getRandomValues are its own streams, the same for the same life in
// every schedule, drawn in its async context alone. A life killed and abandoned that draws after the
// next life started takes nothing from the next life's streams; outside every life, killpoint's own
// calls stay random.

import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { withSeededRandomness } from '../src/harness/user-module/seeded-randomness.js';

/** What a life draws: a number, a uuid by each way, and bytes. */
function draw(): string[] {
  return [String(Math.random()), randomUUID(), globalThis.crypto.randomUUID(), Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(8))).toString('hex')];
}

const folder = mkdtempSync(join(tmpdir(), 'killpoint-seeded-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('seeded per life, in its async context', () => {
  test('the same life draws the same values every time; another life draws others', async () => {
    const first = await withSeededRandomness(1, async () => draw());
    expect(await withSeededRandomness(1, async () => draw())).toEqual(first);
    expect(await withSeededRandomness(2, async () => draw())).not.toEqual(first);
  });

  test('a life abandoned on the thread, drawing after the next life started, takes nothing from it', async () => {
    const alone = await withSeededRandomness(3, async () => [...draw(), ...draw()]);
    let goOn!: () => void;
    const killed = new Promise<void>((resolve) => (goOn = resolve));
    const abandoned = withSeededRandomness(2, async () => {
      await killed;
      return draw();
    });
    const next = withSeededRandomness(3, async () => {
      const before = draw();
      goOn();
      await abandoned;
      return [...before, ...draw()];
    });
    expect(await next).toEqual(alone);
    expect(await abandoned).toEqual(await withSeededRandomness(2, async () => draw()));
  });

  test('an installed package\'s draws (an engine polling as its timing makes it) come from a stream of their own: however many it makes, the agent\'s values stay the same', async () => {
    const engine = join(folder, 'node_modules', 'an-engine', 'index.mjs');
    mkdirSync(join(folder, 'node_modules', 'an-engine'), { recursive: true });
    writeFileSync(engine, "import { randomUUID } from 'node:crypto';\nexport const poll = (n) => { for (let i = 0; i < n; i++) { Math.random(); randomUUID(); globalThis.crypto.getRandomValues(new Uint8Array(4)); } };\n");
    const { poll } = (await import(pathToFileURL(engine).href)) as { poll: (n: number) => void };
    const agentAlone = await withSeededRandomness(4, async () => draw());
    for (const polls of [1, 7]) expect(await withSeededRandomness(4, async () => (poll(polls), draw()))).toEqual(agentAlone);
  });

  test('outside every life, killpoint\'s own calls stay random', async () => {
    await withSeededRandomness(1, async () => draw());
    const seeded = await withSeededRandomness(1, async () => draw());
    const own = draw();
    expect(own).not.toEqual(seeded);
    expect(draw()).not.toEqual(own);
  });
});
