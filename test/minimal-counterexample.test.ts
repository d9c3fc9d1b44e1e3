// A failure shrinks to the true minimal kill point: for random keys on Dana's task, the process
// dying right after the refund's shop commit (the kill point is that commit event: nothing after
// it runs). fast-check's shrinking alone can stop at a local minimum; findMinimal scans every
// smaller schedule, so the answer is the same whichever failing schedule it starts from.
import { fc } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { explore, judgeCase } from '../src/search/explore.js';
import { findMinimal } from '../src/search/minimal.js';
import { exactlyOnce } from '../src/check/properties.js';
import { simulate } from '../src/engines/scripted/simulate.js';
import { loadScenarioFile } from '../src/model/load.js';
import { scripted } from '../src/engines/scripted/engine.js';

const dana = loadScenarioFile('scenarios/lantern/T01-dana-torn-pad.json');
const events = simulate(dana, 'journal+random-keys', { kills: [], interleaving: [] }).lives[0]!.events;
const refundCommit = events.find((e) => e.kind === 'shop-commit' && e.callId === 'call_refund')!.index;
const fails = (j: ReturnType<typeof judgeCase>): boolean => exactlyOnce(j) !== null;

describe('minimal counterexample: journal+random-keys on Dana', () => {
  it('a kill one event earlier (the refund started, not committed) passes', () => {
    expect(fails(judgeCase(dana, scripted('journal+random-keys'), { kills: [refundCommit - 1], interleaving: [] }))).toBe(false);
    expect(fails(judgeCase(dana, scripted('journal+random-keys'), { kills: [refundCommit], interleaving: [] }))).toBe(true);
  });

  it('the explorer\'s earliest failing schedule is the kill right after the refund commits', () => {
    const minimal = explore(dana, scripted('journal+random-keys')).minimal!;
    expect(minimal.schedule.kills).toEqual([refundCommit]);
    expect(minimal.outcome.lives[0]!.events.at(-1)!.kind).toBe('shop-commit');
  });

  it('from any failing schedule of 1 to 3 kills, findMinimal reaches that kill point and proves it', () => {
    const starts = [[refundCommit + 2], [refundCommit + 1, 5], [refundCommit, 9, -1], [70, 0]];
    for (const kills of starts) {
      const start = judgeCase(dana, scripted('journal+random-keys'), { kills, interleaving: [] });
      if (!fails(start)) continue;
      const { judged, proven } = findMinimal(dana, scripted('journal+random-keys'), { kills, interleaving: [] }, fails);
      expect(judged.schedule.kills).toEqual([refundCommit]);
      expect(proven).toBe(true);
    }
  });

  it('a fast-check search, shrunk and finished off, reports the same kill point', () => {
    const details = fc.check(
      fc.property(fc.array(fc.integer({ min: -1, max: 80 }), { minLength: 1, maxLength: 3 }), (kills) => !fails(judgeCase(dana, scripted('journal+random-keys'), { kills, interleaving: [] }))),
      { seed: 7, numRuns: 2000 },
    );
    expect(details.failed).toBe(true);
    const [kills] = details.counterexample!;
    const { judged } = findMinimal(dana, scripted('journal+random-keys'), { kills, interleaving: [] }, fails);
    expect(judged.schedule.kills).toEqual([refundCommit]);
  });
});
