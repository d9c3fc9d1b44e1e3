// The turns a user's DBOS workflow's lives and copies take (src/harness/engines/dbos/run-names.ts):
// the run's first names hold one state's rows at a time, so the jobs of one run never overlap,
// whatever order they end in and whether they fail; jobs of runs beside each other do not wait.

import { expect, test } from 'vitest';
import { inRunsTurn } from '../src/harness/engines/dbos/run-names.js';

/** A job that says when it starts and ends, and ends when told. */
function job(name: string, log: string[]) {
  let end: (ok: boolean) => void = () => undefined;
  const ended = new Promise<boolean>((resolve) => (end = resolve));
  return {
    run: async () => {
      log.push(`${name} starts`);
      const ok = await ended;
      log.push(`${name} ends`);
      if (!ok) throw new Error(`${name} failed`);
      return name;
    },
    end,
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test("a run's jobs run one at a time in the order asked, a failed one's turn passing on; another run's job does not wait", async () => {
  const log: string[] = [];
  const [a, b, c, other] = ['a', 'b', 'c', 'other'].map((n) => job(n, log));
  const ran = [inRunsTurn('run-1', a!.run), inRunsTurn('run-1', b!.run), inRunsTurn('run-1', c!.run), inRunsTurn('run-2', other!.run)];
  await tick();
  expect(log).toEqual(['a starts', 'other starts']);
  b!.end(true); // b is told to end before its turn: it still waits for a
  c!.end(true);
  await tick();
  expect(log).toEqual(['a starts', 'other starts']);
  a!.end(false);
  other!.end(true);
  const results = await Promise.allSettled(ran);
  expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['a failed', 'b', 'c', 'other']);
  expect(log.filter((l) => !l.startsWith('other'))).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
});
