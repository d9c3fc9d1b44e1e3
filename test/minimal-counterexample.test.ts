// A failure shrinks to the true minimal kill point: for random keys on Dana's task, the process
// dying right after the refund's shop commit (the kill point is that commit event: nothing after
// it runs). fast-check's shrinking alone can stop at a local minimum; findMinimal scans every
// smaller schedule, so the answer is the same whichever failing schedule it starts from.
import { fc } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { explore, judgeCase } from '../src/harness/search/explore.js';
import { findMinimal } from '../src/harness/search/minimal.js';
import { exactlyOnce } from '../src/harness/search/properties.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { loadScenarioFile } from '../src/model/load.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';

const dana = loadScenarioFile('scenarios/lantern/T01-dana-torn-pad.json');
const events = simulate(dana, 'journal+random-keys', { kills: [], interleaving: [] }).lives[0]!.events;
const refundCommit = events.find((e) => e.kind === 'shop-commit' && e.callId === 'call_refund')!.index;
const fails = (j: Awaited<ReturnType<typeof judgeCase>>): boolean => exactlyOnce(j) !== null;

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

describe('each broken promise gets its own minimal counterexample', () => {
  // Tess's task under journal+random-keys: the kill after the cancellation commits makes the resume
  // cancel again (refused: already cancelled) and answer otherwise; the first write done twice
  // comes later, in the confirmation email's gap. The report gives both, each with its replay.
  const tess = loadScenarioFile('scenarios/lantern/T11-tess-cancel-and-confirm.json');

  it.each([{ reduce: true }, { reduce: false }])('by equivalence and from scratch alike (reduce: $reduce)', ({ reduce }) => {
    const e = explore(tess, scripted('journal+random-keys'), { kills: 1, interleavingBound: 32, seed: 1, reduce });
    expect(e.minimal!.schedule.kills).toEqual([45]);
    expect(e.minimal!.broken).toEqual(['refused-repeat', 'different-answer']);
    expect(e.minimalByCheck['refused-repeat']).toMatchObject({ kills: [45], killAt: ['shop-commit[call_cancel]'] });
    expect(e.minimalByCheck['done-twice']).toMatchObject({ kills: [58], killAt: ['shop-commit[call_email]'] });
    // Each is the earliest of its check: the schedule one kill point earlier does not fail it.
    expect(judgeCase(tess, scripted('journal+random-keys'), { kills: [57], interleaving: [] }).failed).not.toContain('done-twice');
    expect(judgeCase(tess, scripted('journal+random-keys'), { kills: [58], interleaving: [] }).failed).toContain('done-twice');
  });

  it('and the report prints it with its own replay command', async () => {
    const { formatExploration } = await import('../src/harness/report/text.js');
    const e = explore(tess, scripted('journal+random-keys'));
    expect(formatExploration(e, { kind: 'scenario-file', path: 'scenarios/lantern/T11-tess-cancel-and-confirm.json' }))
      .toContain('minimal counterexample for done twice: kill schedule 58 (shop-commit[call_email]); replay: npx killpoint check scenarios/lantern/T11-tess-cancel-and-confirm.json --strategy journal+random-keys --schedule 58');
  });
});
