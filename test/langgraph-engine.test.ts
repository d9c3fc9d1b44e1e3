// LangGraph.js under killpoint: real LangGraph agents on the SQLite checkpointer, each life a
// process killed with SIGKILL. The sample npm test runs (the full sweep is `npm run langgraph`):
// Dana's task at every kill point in one shape and mode, checked against killpoint's own journal
// strategy kill point by kill point; the parallel-call task at its chosen points in both shapes;
// the order of parallel calls is killpoint's to choose and repeatable; the broken resume is caught.

import { describe, expect, it } from 'vitest';
import { failedChecks, type CheckName } from '../src/harness/check/checks.js';
import { eventIdentities, findKillPoint } from '../src/harness/check/kill-points.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { judge, type Verdict } from '../src/harness/check/verdict.js';
import { langGraphSystem } from '../src/harness/engines/langgraph/engine.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { lanternScenario } from '../src/model/load.js';
import type { Scenario } from '../src/model/scenario.js';
import { inPool } from '../src/harness/process/pool.js';
import { liveChildCount, onChildSpawned } from '../src/harness/process/processes.js';
import { exploreByEquivalence } from '../src/harness/search/equivalence.js';
import { runSchedule } from '../src/harness/session.js';

const dana = lanternScenario('T01');
const ivan = lanternScenario('T03');
const CONCURRENCY = 2;
const NONE = { kills: [], interleaving: [] };

const system = (name: string) => langGraphSystem(name)!;
const runAt = async (scenario: Scenario, name: string, identity: string, base?: RunOutcome) => {
  const baseline = base ?? (await runSchedule(system(name), scenario, NONE));
  const k = findKillPoint(baseline.lives[0]!.events, identity);
  if (k === null) throw new Error(`${name}: no event ${identity} in ${eventIdentities(baseline.lives[0]!.events).join(', ')}`);
  const outcome = await runSchedule(system(name), scenario, { kills: [k], interleaving: [] });
  const verdict = judge(scenario, outcome, baseline);
  return { outcome, verdict, failed: failedChecks({ scenario, outcome, verdict }) };
};

/** Dana's task on react/sync at every kill point, each kill-and-resume run from scratch (two tests read it). */
let danaFromScratch: Promise<{ baseline: RunOutcome; ids: string[]; verdicts: { identity: string; verdict: Verdict; failed: CheckName[] }[] }> | undefined;
function danaAtEveryKillPoint() {
  danaFromScratch ??= (async () => {
    const lg = system('react/sync');
    const baseline = await runSchedule(lg, dana, NONE);
    const ids = eventIdentities(baseline.lives[0]!.events);
    const verdicts = await inPool(ids.map((_, k) => k), CONCURRENCY, async (k) => {
      const outcome = await runSchedule(lg, dana, { kills: [k], interleaving: [] });
      const verdict = judge(dana, outcome, baseline);
      return { identity: ids[k]!, verdict, failed: failedChecks({ scenario: dana, outcome, verdict }) };
    });
    return { baseline, ids, verdicts };
  })();
  return danaFromScratch;
}

describe("Dana's refund on createReactAgent v2, durability sync, at every kill point", () => {
  it('repeats the refund exactly when killed after its commit and before its writes are saved, and agrees with the journal strategy wherever both have the moment', async () => {
    const lg = system('react/sync');
    const { verdicts } = await danaAtEveryKillPoint();
    expect(verdicts.filter((v) => v.verdict.doneTwice.length > 0).map((v) => v.identity)).toEqual(['shop-commit[call_refund]', 'tool-result[call_refund]']);
    expect(verdicts.flatMap((v) => v.failed.filter((c) => lg.promised.includes(c)))).toEqual([]);

    // killpoint's journal saves after every step as LangGraph saves after every task: at every
    // moment both runs have (the model's, the tools', the answer's), the same verdict.
    const journal = scripted('journal');
    const journalBaseline = runSchedule(journal, dana, NONE) as RunOutcome;
    const journalIds = eventIdentities(journalBaseline.lives[0]!.events);
    const shared = verdicts.filter((v) => journalIds.includes(v.identity));
    expect(shared.length).toBeGreaterThan(40);
    for (const v of shared) {
      const outcome = runSchedule(journal, dana, { kills: [journalIds.indexOf(v.identity)], interleaving: [] }) as RunOutcome;
      const j = judge(dana, outcome, journalBaseline);
      const comparable = (x: typeof j) => ({ doneTwice: x.doneTwice.map(String), lost: x.lostWrites.map(String), refused: x.refused, sameAnswer: x.sameAnswer, modelCallsRedone: x.modelCallsRedone, answers: x.answersDelivered });
      expect({ at: v.identity, ...comparable(v.verdict) }).toEqual({ at: v.identity, ...comparable(j) });
    }
    expect(liveChildCount()).toBe(0);
  }, 300_000);

  it('explored by equivalence (a child killed at every kill point, one recovery per distinct state of the real files), every kill point has the verdict of its run from scratch', async () => {
    const lg = system('react/sync');
    const { baseline, ids, verdicts } = await danaAtEveryKillPoint();
    const spawned: number[] = [];
    onChildSpawned((pid) => spawned.push(pid));
    const reduced = new Map<string, { verdict: Verdict; failed: readonly CheckName[] }>();
    let result;
    try {
      result = await exploreByEquivalence(dana, lg, [{ picks: [], baseline }], 1, (c) => {
        if (c.kills[0]! >= 0) reduced.set(ids[c.kills[0]!]!, { verdict: c.verdict(), failed: c.failed });
      }, { concurrency: CONCURRENCY });
    } finally {
      onChildSpawned(null);
    }
    const comparable = (v: Verdict) => ({ doneTwice: v.doneTwice.map(String), lost: v.lostWrites.map(String), refused: v.refused, sameAnswer: v.sameAnswer, modelCallsRedone: v.modelCallsRedone, answers: v.answersDelivered });
    expect(reduced.size).toBe(ids.length);
    for (const v of verdicts) {
      const r = reduced.get(v.identity)!;
      expect({ at: v.identity, failed: r.failed, ...comparable(r.verdict) }).toEqual({ at: v.identity, failed: v.failed, ...comparable(v.verdict) });
    }
    // The root life, a killed child at each of its events, and one recovery per distinct state.
    const { livesRun, distinctStates } = result.reduction;
    expect(spawned.length).toBe(1 + ids.length + (livesRun - 1));
    expect(result.reduction.childrenKilled).toBe(ids.length);
    expect(distinctStates).toBeLessThan(ids.length / 2);
    expect(livesRun).toBeLessThan(ids.length / 2);
    expect(liveChildCount()).toBe(0);
  }, 300_000);
});

describe("Ivan's two cancellations, called in parallel", () => {
  it('toolnode saves both results together: a kill after the first commit sends both again', async () => {
    const { verdict } = await runAt(ivan, 'toolnode/sync', 'shop-commit[call_cancel-both_1]');
    expect(verdict.refused).toEqual({ 'already-cancelled': 1 });
    const { verdict: later } = await runAt(ivan, 'toolnode/sync', 'shop-commit[call_cancel-both_2]');
    expect(later.refused).toEqual({ 'already-cancelled': 2 });
  }, 120_000);

  it('createReactAgent v2 saves each result as it finishes: a kill after the second commit sends only that one again', async () => {
    const { verdict } = await runAt(ivan, 'react/sync', 'shop-commit[call_cancel-both_2]');
    expect(verdict.refused).toEqual({ 'already-cancelled': 1 });
  }, 120_000);

  it('with keys, no cancellation is refused or repeated at those points', async () => {
    for (const identity of ['shop-commit[call_cancel-both_1]', 'shop-commit[call_cancel-both_2]']) {
      const { failed } = await runAt(ivan, 'toolnode/sync+keys', identity);
      expect({ identity, failed }).toEqual({ identity, failed: [] });
    }
  }, 120_000);

  it('the order of the parallel calls is killpoint\'s to choose: the same picks give the same events, other picks another order', async () => {
    const lg = system('toolnode/sync');
    const [a, b] = await Promise.all([runSchedule(lg, ivan, NONE), runSchedule(lg, ivan, NONE)]);
    expect(b.lives[0]!.events).toEqual(a.lives[0]!.events);
    expect(a.pickWidths.some((w) => w > 1)).toBe(true);
    const other = a.picksTaken.map((p, i) => (a.pickWidths[i]! > 1 ? a.pickWidths[i]! - 1 - p : p));
    const [c, d] = await Promise.all([runSchedule(lg, ivan, { kills: [], interleaving: other }), runSchedule(lg, ivan, { kills: [], interleaving: other })]);
    expect(d.lives[0]!.events).toEqual(c.lives[0]!.events);
    expect(eventIdentities(c.lives[0]!.events)).not.toEqual(eventIdentities(a.lives[0]!.events));
    expect(judge(ivan, c, a).sameAnswer).toBe(true);
  }, 120_000);
});

describe('the resume LangGraph invites, and the sound one', () => {
  it('after a kill right after a task\'s writes were saved, getState().next is empty though the run is not finished: reading that as finished loses the rest of the run', async () => {
    const broken = await runAt(dana, 'react/sync+keys/next-only-resume', 'writes-saved[call_refund]');
    expect(broken.verdict.answer).toBeNull();
    expect(broken.failed).toContain('different-answer');
    const sound = await runAt(dana, 'react/sync+keys', 'writes-saved[call_refund]');
    expect(sound.failed).toEqual([]);
  }, 120_000);
});
