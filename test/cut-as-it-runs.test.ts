// The first life of an in-process run is cut as it runs: its state is copied after each of its
// events while it runs, so the recoveries from its kill points start at once, and its repeat (which
// must write the same events, or the copies are not what a kill there leaves) runs beside them. A
// repeat that differs fails the session when it closes. Shown on a tier of this test's own: a life
// that writes one file per event and copies the folder after each (as in-process-life.ts does).

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/harness/check/events.js';
import { LifeNotRepeatable, processLives, type ProcessTier, type TierLife, type TierLifeRequest } from '../src/harness/process/process-lives.js';
import { folderBytesKey } from '../src/harness/process/state-digest.js';
import { lanternScenario } from '../src/model/load.js';

const dana = lanternScenario('T01');

/** A tier whose lives write `steps` files, one per event; the repeats of `differsOnRepeat` write another last event. */
function countingTier(differsOnRepeat: boolean): ProcessTier & { lives: number } {
  const tier = {
    name: 'counting',
    files: [{ name: 'steps.txt', kind: 'bytes' as const }],
    cutsInOneLife: true,
    lives: 0,
    prepare: (_: unknown, dir: string) => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'steps.txt'), '');
    },
    life: async (_: unknown, request: TierLifeRequest): Promise<TierLife> => {
      const n = tier.lives++;
      const file = join(request.stateDir, 'steps.txt');
      const events: RunEvent[] = [];
      const cuts: NonNullable<TierLife['cuts']> = [];
      for (let k = 0; k < 3; k++) {
        const kind = differsOnRepeat && n > 0 && k === 2 ? 'answer-delivered' : 'model-request';
        events.push({ index: k, kind, modelCall: k } as unknown as RunEvent);
        writeFileSync(file, `${readFileSync(file, 'utf8')}${k}\n`);
        if (request.cutInto !== undefined) {
          const dir = join(request.cutInto, `after-${k}`);
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, 'steps.txt'), readFileSync(file));
          cuts.push({ k, picksTaken: 0, dir, bytesKey: folderBytesKey(dir) });
        }
      }
      await Promise.resolve();
      return { record: { events, end: 'finished', killedAfter: null, error: null, errorKind: null }, conversation: null, picks: [], widths: [], ...(request.cutInto === undefined ? {} : { cuts }) };
    },
    stores: () => ({ delivered: [], writes: [], refusals: [], shop: {} }) as never,
  };
  return tier;
}

describe('the first life, cut as it runs', () => {
  it('knows the state after each of its events as soon as it has run; its repeat runs when its kill points are asked for, and the session closes', async () => {
    const tier = countingTier(false);
    const lives = processLives(tier)(dana);
    const start = { state: lives.initial(), lifeIndex: 0, picks: [] };
    const run = await lives.runLife(start);
    expect(tier.lives).toBe(1);
    const after = [0, 1, 2].map((k) => run.after(k).state.digest);
    expect(new Set(after).size).toBe(3);
    await lives.cutEvery!(start, run, 2);
    await lives.close();
    expect(tier.lives).toBe(2);
  });

  it('a repeat that writes another event fails the session when it closes, naming the event', async () => {
    const tier = countingTier(true);
    const lives = processLives(tier)(dana);
    const start = { state: lives.initial(), lifeIndex: 0, picks: [] };
    const run = await lives.runLife(start);
    await lives.cutEvery!(start, run, 2);
    const closing = lives.close();
    await expect(closing).rejects.toThrow(LifeNotRepeatable);
    await expect(closing).rejects.toThrow(/counting T01 life 0: from the same state with the same picks, event 2 was .*model-request.* in the life run to its end and .*answer-delivered.* in its repeat/);
  });
});
