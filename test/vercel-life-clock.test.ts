// killpoint's clock inside a Vercel Workflow life (life-clock.ts) and the queue's delays on it
// (queue-delays.ts), in parts: a recovery's clock starts past its predecessor's last event, the
// clock never goes back, and the delivery due first goes first, its answer telling the queue to
// deliver it again at once. The whole, a workflow that sleeps an hour: test/vercel-workflow-module.test.ts.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { installLifeClock, latestEventTime, type LifeClock } from '../src/harness/engines/vercel-workflow/life-clock.js';
import { QueueDelays } from '../src/harness/engines/vercel-workflow/queue-delays.js';
import { withLifeClock } from '../src/harness/user-module/life-clock.js';

const HOUR_MS = 3_600_000;
let clock: LifeClock | undefined;
const RealDate = Date;

afterEach(() => {
  clock?.restore();
  clock = undefined;
});

const delivery = (messageId: string) => new Request('http://localhost/queue', { method: 'POST', headers: { 'x-vqs-message-id': messageId } });

test("the clock starts past what its predecessor recorded, is what the thread's Date reads outside a life's own clock, never goes back, and is put back", () => {
  const recordedMs = RealDate.now() + HOUR_MS;
  clock = installLifeClock(recordedMs);
  expect(Date.now()).toBeGreaterThan(recordedMs);
  expect(new Date().getTime()).toBeGreaterThan(recordedMs);
  expect(new Date(0).getTime()).toBe(0);
  expect(new Date() instanceof Date && new Date() instanceof RealDate).toBe(true);
  expect(Date.parse(Date())).toBeGreaterThan(recordedMs - 1000);
  clock.advanceTo(recordedMs + 2 * HOUR_MS);
  expect(Date.now()).toBeGreaterThanOrEqual(recordedMs + 2 * HOUR_MS);
  clock.advanceTo(0);
  expect(Date.now()).toBeGreaterThanOrEqual(recordedMs + 2 * HOUR_MS);
  clock.restore();
  expect(Date.now()).toBeLessThan(recordedMs);
});

test("a recovery's clock starts no earlier than the latest event of the world (none: the machine's time)", () => {
  const worldDir = mkdtempSync(join(tmpdir(), 'killpoint-clock-'));
  try {
    expect(latestEventTime(worldDir)).toBe(0);
    mkdirSync(join(worldDir, 'events'));
    const times = ['2031-01-01T10:00:00.000Z', '2031-01-01T11:00:00.000Z', '2031-01-01T09:00:00.000Z'];
    times.forEach((createdAt, i) => writeFileSync(join(worldDir, 'events', `e${i}.json`), JSON.stringify({ eventType: 'wait_completed', createdAt })));
    expect(new RealDate(latestEventTime(worldDir)).toISOString()).toBe('2031-01-01T11:00:00.000Z');
  } finally {
    rmSync(worldDir, { recursive: true, force: true });
  }
});

test('the delivery due first is let through first, the clock moved to its due time, told to come again at once; the rest are answered as done when the run ends', async () => {
  clock = installLifeClock(0);
  const delays = new QueueDelays(clock);
  const startMs = clock.now();
  const sleep = delays.park(delivery('msg_sleep'), 3600);
  const retry = delays.park(delivery('msg_retry'), 5);
  expect(delays.wakeFirstDue()).toBe(true);
  expect(await (await retry).json()).toEqual({ timeoutSeconds: 0 });
  expect(clock.now() - startMs).toBeGreaterThanOrEqual(5000);
  expect(clock.now() - startMs).toBeLessThan(HOUR_MS);
  // In flight until it is delivered again.
  expect(delays.inFlight()).toBe(true);
  delays.arrived(delivery('msg_retry'));
  expect(delays.inFlight()).toBe(false);
  delays.releaseAll();
  expect(await (await sleep).json()).toEqual({ ok: true });
  expect(delays.wakeFirstDue()).toBe(false);
});

// The user's steps read the life's own clock (user-module/life-clock.ts), not the engine's: a sleep
// the queue lets through moves it by the delay asked, so a step after sleep("1h") reads an hour later.
test("a sleep let through moves the steps' clock by its delay, the same in every run", async () => {
  const stepsRead = () =>
    withLifeClock(0, async () => {
      clock = installLifeClock(0);
      const delays = new QueueDelays(clock);
      const before = Date.now();
      const sleep = delays.park(delivery('msg_sleep'), 3600);
      delays.wakeFirstDue();
      await sleep;
      return [before, Date.now()];
    });
  const [before, after] = await stepsRead();
  expect(after! - before!).toBeGreaterThanOrEqual(HOUR_MS);
  expect(after! - before!).toBeLessThan(HOUR_MS + 1000);
  clock?.restore();
  expect(await stepsRead()).toEqual([before, after]);
});
