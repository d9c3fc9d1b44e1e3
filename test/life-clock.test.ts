// The time inside a life in killpoint's process (user-module/life-clock.ts): the agent's Date is the
// life's own clock, the same for the same life in every schedule and later for later lives; an
// installed package's readings, and every reading outside a life, are the machine's.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { CLOCK_START_MS, LIFE_GAP_MS, withLifeClock } from '../src/harness/user-module/life-clock.js';

/** What a life reads of the time, every way. */
const read = () => [Date.now(), new Date().getTime(), Date.parse(Date())];

const folder = mkdtempSync(join(tmpdir(), 'killpoint-clock-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

test('the same life reads the same times every time, however slow the machine; a later life reads later ones', async () => {
  const first = await withLifeClock(1, async () => read());
  const slow = await withLifeClock(1, async () => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    return read();
  });
  expect(slow).toEqual(first);
  expect(first[0]).toBe(CLOCK_START_MS + LIFE_GAP_MS);
  // Each reading moves the clock: never twice the same moment.
  expect(first[1]).toBeGreaterThan(first[0]!);
  const later = await withLifeClock(2, async () => read());
  expect(later[0]).toBeGreaterThan(first[2]!);
});

test("an installed package's readings are the machine's, inside a life; outside every life every reading is", async () => {
  const engine = join(folder, 'node_modules', 'an-engine', 'index.mjs');
  mkdirSync(join(folder, 'node_modules', 'an-engine'), { recursive: true });
  writeFileSync(engine, 'export const stamp = () => [Date.now(), new Date().getTime()];\n');
  const { stamp } = (await import(pathToFileURL(engine).href)) as { stamp: () => number[] };
  const machineMs = performance.timeOrigin + performance.now();
  const inLife = await withLifeClock(0, async () => ({ engine: stamp(), agent: Date.now() }));
  expect(inLife.agent).toBe(CLOCK_START_MS);
  for (const ms of inLife.engine) expect(Math.abs(ms - machineMs)).toBeLessThan(60_000);
  expect(Math.abs(Date.now() - machineMs)).toBeLessThan(60_000);
  expect(new Date(0).getTime()).toBe(0);
  expect(new Date(2020, 0, 1) instanceof Date).toBe(true);
});
