// A life's time limit follows the run never killed (src/harness/life-time-limit.ts), unless its
// caller sets one; and the drive's stop rule, which ends a batch after a run whose recovery hung
// without starting the runs after it (src/harness/search/drive.ts).

import { afterEach, describe, expect, it, vi } from 'vitest';
import { adaptiveLifeTimeoutMs, DEFAULT_LIFE_TIMEOUT_MS, lifeTimeoutFrom, sessionLifeTimeoutMs, timedNeverKilled, withLifeTimes } from '../src/harness/life-time-limit.js';
import { drive, NOT_RUN, type NotRun } from '../src/harness/search/drive.js';

const VARIABLE = 'KILLPOINT_TEST_LIFE_TIMEOUT_S';

/** Runs a life never killed that took `ms` by the clock the limit reads. */
async function neverKilledTaking(ms: number): Promise<void> {
  const now = vi.spyOn(performance, 'now').mockReturnValueOnce(1_000).mockReturnValueOnce(1_000 + ms);
  await timedNeverKilled(async () => undefined);
  now.mockRestore();
}

afterEach(() => {
  delete process.env[VARIABLE];
  vi.restoreAllMocks();
});

describe('the limit of a life', () => {
  it('is ten times the longest life never killed plus 5 s, in whole seconds up', () => {
    expect(adaptiveLifeTimeoutMs(0)).toBe(5_000);
    expect(adaptiveLifeTimeoutMs(300)).toBe(8_000);
    expect(adaptiveLifeTimeoutMs(310)).toBe(9_000);
    expect(adaptiveLifeTimeoutMs(20_000)).toBe(205_000);
  });

  it('in a session, follows its longest life never killed once one is timed; the fixed default before, and outside any session', async () => {
    expect(sessionLifeTimeoutMs()).toBe(DEFAULT_LIFE_TIMEOUT_MS);
    await withLifeTimes(async () => {
      expect(sessionLifeTimeoutMs()).toBe(DEFAULT_LIFE_TIMEOUT_MS);
      await neverKilledTaking(700);
      expect(sessionLifeTimeoutMs()).toBe(12_000);
      await neverKilledTaking(200);
      expect(sessionLifeTimeoutMs()).toBe(12_000);
      await neverKilledTaking(1_500);
      expect(sessionLifeTimeoutMs()).toBe(20_000);
      expect(lifeTimeoutFrom(VARIABLE)).toBe(20_000);
    });
    // Another session keeps its own times.
    await withLifeTimes(async () => expect(sessionLifeTimeoutMs()).toBe(DEFAULT_LIFE_TIMEOUT_MS));
  });

  it('set by its variable, stands as given, whatever the session timed', async () => {
    await withLifeTimes(async () => {
      await neverKilledTaking(700);
      process.env[VARIABLE] = '3';
      expect(lifeTimeoutFrom(VARIABLE)).toBe(3_000);
      process.env[VARIABLE] = 'soon';
      expect(lifeTimeoutFrom(VARIABLE)).toBe(12_000);
    });
  });
});

/** A plan of one batch of asks 0..n-1, handing back what it was answered. */
function* oneBatch(n: number): Generator<number[], (string | NotRun)[], (string | NotRun)[]> {
  return yield Array.from({ length: n }, (_, i) => i);
}

describe('a batch with a stop rule', () => {
  const answer = async (ask: number): Promise<string> => (ask >= 2 ? `hung ${ask}` : `ran ${ask}`);

  it('awaits the runs under way when one stops it, and never starts those after it: each is answered NOT_RUN', async () => {
    const started: number[] = [];
    const answers = await drive(oneBatch(6), (ask: number) => (started.push(ask), answer(ask)), { concurrency: 2 }, (a) => a.startsWith('hung'));
    expect(answers).toEqual(['ran 0', 'ran 1', 'hung 2', 'hung 3', NOT_RUN, NOT_RUN]);
    expect(started).toEqual([0, 1, 2, 3]);
  });

  it('without one, runs every ask', async () => {
    const answers = await drive(oneBatch(6), answer, { concurrency: 2 });
    expect(answers).toEqual(['ran 0', 'ran 1', 'hung 2', 'hung 3', 'hung 4', 'hung 5']);
  });

  it('stops a batch answered at once too', () => {
    const answers = drive(oneBatch(4), (ask: number) => (ask >= 1 ? `hung ${ask}` : `ran ${ask}`), {}, (a) => a.startsWith('hung'));
    expect(answers).toEqual(['ran 0', 'hung 1', NOT_RUN, NOT_RUN]);
  });
});
