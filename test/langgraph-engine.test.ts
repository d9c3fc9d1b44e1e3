// LangGraph.js under killpoint: real LangGraph agents on the SQLite checkpointer, each life a
// process killed with SIGKILL. The sample npm test runs: Dana's task in one shape and mode at the
// kill points of the refund's gap and a stride through the rest, each run from scratch and checked
// against killpoint's own journal strategy; a one-refund task at every kill point, explored by
// equivalence, checked against the journal strategy and against runs from scratch; the
// parallel-call task at its chosen points in both shapes; the order of parallel calls is
// killpoint's to choose and repeatable; the broken resume is caught. The full sweep is
// `npm run langgraph` (every kill point of the 14 tasks under every system, explored by
// equivalence); `npm run langgraph -- --strategies react/sync --scenarios T01 --from-scratch
// --model journal` runs every kill point of Dana's task from scratch too, each checked against
// its verdict by equivalence and against the journal strategy.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failedChecks } from '../src/harness/check/checks.js';
import { eventIdentities, findKillPoint } from '../src/harness/check/kill-points.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { judge, type Verdict } from '../src/harness/check/verdict.js';
import { langGraphSystem } from '../src/harness/engines/langgraph/engine.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { lanternScenario, loadScenarioFile } from '../src/model/load.js';
import type { Scenario } from '../src/model/scenario.js';
import { liveChildCount, onChildSpawned } from '../src/harness/process/processes.js';
import { exploreByEquivalence } from '../src/harness/search/equivalence.js';
import { runSchedule } from '../src/harness/session.js';
import { judgedFromScratch, type JudgedPoint } from './helpers.js';

const dana = lanternScenario('T01');
const ivan = lanternScenario('T03');
const oneRefund = loadScenarioFile(join(import.meta.dirname, 'fixtures', 'one-refund.json'));
const CONCURRENCY = 2;
const NONE = { kills: [], interleaving: [] };
/** Of Dana's task, every STRIDE-th kill point is run from scratch, besides the refund's. */
const STRIDE = 12;
/** Where a kill repeats the refund: after its commit, before its writes are saved. */
const GAP = ['shop-commit[call_refund]', 'tool-result[call_refund]'];

const system = (name: string) => langGraphSystem(name)!;
const runAt = async (scenario: Scenario, name: string, identity: string, base?: RunOutcome) => {
  const baseline = base ?? (await runSchedule(system(name), scenario, NONE));
  const k = findKillPoint(baseline.lives[0]!.events, identity);
  if (k === null) throw new Error(`${name}: no event ${identity} in ${eventIdentities(baseline.lives[0]!.events).join(', ')}`);
  const outcome = await runSchedule(system(name), scenario, { kills: [k], interleaving: [] });
  const verdict = judge(scenario, outcome, baseline);
  return { outcome, verdict, failed: failedChecks({ scenario, outcome, verdict }) };
};

const comparable = (v: Verdict) => ({ doneTwice: v.doneTwice.map(String), lost: v.lostWrites.map(String), refused: v.refused, sameAnswer: v.sameAnswer, modelCallsRedone: v.modelCallsRedone, answers: v.answersDelivered });
/**
 * killpoint's journal saves after every step as LangGraph saves after every task: at every moment
 * both runs have (the model's, the tools', the answer's), the same verdict. The differences, one
 * line each, and how many moments were compared.
 */
function againstJournal(scenario: Scenario, verdicts: readonly JudgedPoint[]): { shared: number; differences: string[] } {
  const journal = scripted('journal');
  const journalBaseline = runSchedule(journal, scenario, NONE) as RunOutcome;
  const journalIds = eventIdentities(journalBaseline.lives[0]!.events);
  const shared = verdicts.filter((v) => journalIds.includes(v.identity));
  const differences = shared.flatMap((v) => {
    const outcome = runSchedule(journal, scenario, { kills: [journalIds.indexOf(v.identity)], interleaving: [] }) as RunOutcome;
    const j = comparable(judge(scenario, outcome, journalBaseline));
    const l = comparable(v.verdict);
    return JSON.stringify(l) === JSON.stringify(j) ? [] : [`${v.identity}: langgraph ${JSON.stringify(l)}, journal ${JSON.stringify(j)}`];
  });
  return { shared: shared.length, differences };
}

describe("Dana's refund on createReactAgent v2, durability sync", () => {
  it('at the refund\'s kill points and a stride through the rest: repeats the refund exactly when killed after its commit and before its writes are saved, and agrees with the journal strategy wherever both have the moment', async () => {
    const lg = system('react/sync');
    const baseline = await runSchedule(lg, dana, NONE);
    const ids = eventIdentities(baseline.lives[0]!.events);
    // Every event of the refund's call, the one before and the one after them (the checkpoint
    // that follows its writes), the first and last events, and every STRIDE-th kill point.
    const refund = ids.flatMap((id, k) => (id.endsWith('[call_refund]') ? [k] : []));
    expect(refund.length).toBeGreaterThanOrEqual(4);
    const points = [...new Set([-1, 0, ids.length - 1, refund[0]! - 1, ...refund, refund.at(-1)! + 1, ...Array.from({ length: Math.ceil((ids.length + 1) / STRIDE) }, (_, i) => i * STRIDE - 1)])].sort((a, b) => a - b);
    const verdicts = await judgedFromScratch(system('react/sync'), dana, baseline, points);
    expect(verdicts.filter((v) => v.verdict.doneTwice.length > 0).map((v) => v.identity)).toEqual(GAP);
    expect(verdicts.flatMap((v) => v.failed.filter((c) => lg.promised.includes(c)))).toEqual([]);
    const { shared, differences } = againstJournal(dana, verdicts);
    // The refund's moments and those of the stride that both runs have.
    expect(shared).toBeGreaterThan(8);
    expect(differences).toEqual([]);
    expect(liveChildCount()).toBe(0);
  }, 300_000);
});

describe('a one-refund task on createReactAgent v2, durability sync, at every kill point', () => {
  it('explored by equivalence with processes (a child killed at every kill point, one recovery per distinct state of the real files): the refund repeated exactly in its gap, the journal strategy\'s verdict wherever both have the moment, and the verdict of the run from scratch in process', async () => {
    const lg = langGraphSystem('react/sync', { tier: 'process' })!;
    const baseline = await runSchedule(lg, oneRefund, NONE);
    const events = baseline.lives[0]!.events;
    const ids = eventIdentities(events);
    const spawned: number[] = [];
    onChildSpawned((pid) => spawned.push(pid));
    const reduced: JudgedPoint[] = [];
    let result;
    try {
      result = await exploreByEquivalence(oneRefund, lg, [{ picks: [], baseline }], 1, (c) => {
        const k = c.kills[0]!;
        if (k >= 0) reduced.push({ k, identity: ids[k]!, verdict: c.verdict(), failed: c.failed });
      }, { concurrency: CONCURRENCY });
    } finally {
      onChildSpawned(null);
    }
    expect(reduced.map((v) => v.k)).toEqual(ids.map((_, k) => k));
    expect(reduced.filter((v) => v.verdict.doneTwice.length > 0).map((v) => v.identity)).toEqual(GAP);
    expect(reduced.flatMap((v) => v.failed.filter((c) => lg.promised.includes(c)))).toEqual([]);
    const { shared, differences } = againstJournal(oneRefund, reduced);
    expect(shared).toBeGreaterThan(8);
    expect(differences).toEqual([]);

    // The verdict of the run from scratch: in the gap, at its edges, and at the first and last events.
    const points = [0, ...['tool-start[call_refund]', ...GAP, 'writes-saved[call_refund]'].map((id) => ids.indexOf(id)), ids.length - 1];
    expect(points.every((k) => k >= 0)).toBe(true);
    for (const v of await judgedFromScratch(system('react/sync'), oneRefund, baseline, points)) {
      const r = reduced[v.k]!;
      expect({ at: v.identity, failed: r.failed, ...comparable(r.verdict) }).toEqual({ at: v.identity, failed: v.failed, ...comparable(v.verdict) });
    }

    // The root life, a killed child at each of its events, and one recovery per distinct state:
    // one before anything and one after each event that saves something (a checkpoint, a task's
    // writes, the shop's commit, the answer), whatever the kill points between them.
    const { livesRun, distinctStates } = result.reduction;
    const saving = events.filter((e) => ['checkpoint-saved', 'writes-saved', 'shop-commit', 'answer-delivered'].includes(e.kind)).length;
    expect(spawned.length).toBe(1 + ids.length + (livesRun - 1));
    expect(result.reduction.childrenKilled).toBe(ids.length);
    expect(distinctStates).toBe(1 + saving);
    expect(livesRun).toBe(distinctStates);
    expect(distinctStates).toBeLessThan(ids.length);
    expect(liveChildCount()).toBe(0);
  }, 300_000);
});

describe("Ivan's two cancellations, called in parallel", () => {
  it('toolnode saves both results together: a kill after the first commit sends both again', async () => {
    const base = await runSchedule(system('toolnode/sync'), ivan, NONE);
    const { verdict } = await runAt(ivan, 'toolnode/sync', 'shop-commit[call_cancel-both_1]', base);
    expect(verdict.refused).toEqual({ 'already-cancelled': 1 });
    const { verdict: later } = await runAt(ivan, 'toolnode/sync', 'shop-commit[call_cancel-both_2]', base);
    expect(later.refused).toEqual({ 'already-cancelled': 2 });
  }, 120_000);

  it('createReactAgent v2 saves each result as it finishes: a kill after the second commit sends only that one again', async () => {
    const { verdict } = await runAt(ivan, 'react/sync', 'shop-commit[call_cancel-both_2]');
    expect(verdict.refused).toEqual({ 'already-cancelled': 1 });
  }, 120_000);

  it('with keys, no cancellation is refused or repeated at those points', async () => {
    const base = await runSchedule(system('toolnode/sync+keys'), ivan, NONE);
    for (const identity of ['shop-commit[call_cancel-both_1]', 'shop-commit[call_cancel-both_2]']) {
      const { failed } = await runAt(ivan, 'toolnode/sync+keys', identity, base);
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
