// A life's time limit follows the run never killed (src/harness/life-time-limit.ts), unless its
// caller sets one; it reaches each life through the session of a process engine; and the drive's stop rule, which ends a batch after a run whose recovery hung
// without starting the runs after it (src/harness/search/drive.ts).

import { mkdirSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { adaptiveLifeTimeoutMs, DEFAULT_LIFE_TIMEOUT_MS, lifeTimeoutFrom, LifeTimes } from '../src/harness/life-time-limit.js';
import { drive, NOT_RUN, type NotRun } from '../src/harness/search/drive.js';
import { processSession } from '../src/harness/process/process-lives.js';
import { runWholeInProcesses, type WholeRunTier } from '../src/harness/process/whole-run.js';
import { loadScenarioFile, PROJECT_ROOT } from '../src/model/load.js';
import { join } from 'node:path';

const VARIABLE = 'KILLPOINT_TEST_LIFE_TIMEOUT_S';

/** Times a life never killed that took `ms` by the clock LifeTimes reads. */
async function neverKilledTaking(times: LifeTimes, ms: number): Promise<void> {
  const now = vi.spyOn(performance, 'now').mockReturnValueOnce(1_000).mockReturnValueOnce(1_000 + ms);
  await times.timed(async () => undefined);
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

  it("follows the longest of a session's lives never killed once one is timed; the fixed default before", async () => {
    const times = new LifeTimes();
    expect(times.limitMs()).toBe(DEFAULT_LIFE_TIMEOUT_MS);
    await neverKilledTaking(times, 700);
    expect(times.limitMs()).toBe(12_000);
    await neverKilledTaking(times, 200);
    expect(times.limitMs()).toBe(12_000);
    await neverKilledTaking(times, 1_500);
    expect(times.limitMs()).toBe(20_000);
  });

  it('reaches a life through its request; set by its variable, it stands as given', () => {
    expect(lifeTimeoutFrom(VARIABLE, { timeoutMs: 12_000 })).toBe(12_000);
    expect(lifeTimeoutFrom(VARIABLE)).toBe(DEFAULT_LIFE_TIMEOUT_MS);
    process.env[VARIABLE] = '3';
    expect(lifeTimeoutFrom(VARIABLE, { timeoutMs: 12_000 })).toBe(3_000);
    process.env[VARIABLE] = 'soon';
    expect(lifeTimeoutFrom(VARIABLE, { timeoutMs: 12_000 })).toBe(12_000);
  });

  it("in a session of a process engine: its run never killed sets the limit of its killed runs' lives, and another session starts afresh", async () => {
    const scenario = loadScenarioFile(join(PROJECT_ROOT, 'scenarios', 'lantern', 'T01-dana-torn-pad.json'));
    const limits: { kills: number; lifeIndex: number; timeoutMs: number | undefined }[] = [];
    let kills = 0;
    const tier: WholeRunTier = {
      name: 'timed',
      prepare: (_scenario, stateDir) => mkdirSync(stateDir, { recursive: true }),
      life: async (_scenario, request) => {
        limits.push({ kills, lifeIndex: request.lifeIndex, timeoutMs: request.timeoutMs });
        // The life never killed takes 300 ms by the session's clock; a killed one dies at once.
        if (request.killAfter === null && kills === 0) await new Promise((resolve) => setTimeout(resolve, 300));
        const end = request.killAfter === null ? 'finished' : 'killed';
        return { record: { events: [], end, killedAfter: request.killAfter, error: null, errorKind: null }, conversation: null, picks: [], widths: [] };
      },
      stores: () => ({ delivered: [], writes: [], refusals: [], shop: {} }),
    };
    const open = () => processSession(scenario, (schedule, times) => ((kills = schedule.kills.length), runWholeInProcesses(tier, scenario, 'timed', schedule, times)));
    const session = open();
    await session.run({ kills: [], interleaving: [] });
    await session.run({ kills: [-1], interleaving: [] });
    await session.close();
    const other = open();
    await other.run({ kills: [-1], interleaving: [] });
    await other.close();
    const [neverKilled, killed, recovery, otherKilled] = limits;
    expect(neverKilled!.timeoutMs).toBe(DEFAULT_LIFE_TIMEOUT_MS);
    // At least 10 x 300 ms + 5 s: the run never killed took no less than its 300 ms.
    expect(killed!.timeoutMs).toBeGreaterThanOrEqual(8_000);
    expect(killed!.timeoutMs).toBeLessThan(DEFAULT_LIFE_TIMEOUT_MS);
    expect(recovery!.timeoutMs).toBe(killed!.timeoutMs);
    expect(otherKilled!.timeoutMs).toBe(DEFAULT_LIFE_TIMEOUT_MS);
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
