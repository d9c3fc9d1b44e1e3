// The real tier against the simulation, on a fixed sample. The full sweep, every single kill point
// of every bundled scenario under every strategy and broken variant, from scratch and by
// equivalence (about half an hour), is `npm run real` (bench/real.ts); `npm run bench` runs T01
// under journal+keys of it. Here:
// - Dana's task (T01) under journal and journal+keys: every sixteenth kill point of each, the two
//   strides offset so that between them every eighth kill point of the run is taken, every kill
//   point in or next to the gap (from the refund's start to the first event after its record is
//   saved) and the last (the delivered answer); under journal the chosen kill points too (under
//   journal+keys they are the same events and saves, the keys aside, and its chosen kill points
//   run on T03);
// - the chosen kill points (sample.ts: before anything, mid first reply, mid answer, the first
//   save's two moments, every commit and everything in the gap after it, the last event) of every
//   other strategy and broken variant, each on one of Dana's, Grace's (T02: a refused refund, its
//   retry and a hand-off) and the parallel-call task (T03), so that every strategy runs once and
//   every task under several (SAMPLE below; T03's rows run other orders of its parallel calls);
//   the variant that saves the answer while it streams from its first answer chunk on, with its
//   minimal failing kill point (before, its run is journal's, event for event), and the in-place
//   journal at its writes (elsewhere its files are the journal's);
// - second kills, during the recovery (before anything, and in its own gap), and a third, under
//   journal and workflow;
// - the real tier by equivalence at every kill point of a one-refund task.
// A disagreement names the scenario, the strategy and the kill point, and prints the replay command.
// `npm test` runs the sample (test/suite.ts): the real tier by equivalence at every kill point of
// the one-refund task (4 s, the refund done twice in its gap found as the simulation finds it), a
// kill between a journal save's temp write and its rename (under a second), and the checks that
// need no child process; `npm run engines` (KILLPOINT_SUITE=all) runs every test.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lanternScenario, loadScenarioFile } from '../src/model/load.js';
import { Baselines, compareTiers, compareTiersByEquivalence, everyKillPoint, formatMismatch, inPool, tierMismatches, type TierCase, type TierComparison } from '../src/harness/differential/real-vs-simulated.js';
import { liveChildCount, onChildSpawned } from '../src/harness/process/processes.js';
import { realKill } from '../src/harness/engines/scripted/process/real-kill.js';
import { chosenKillPoints } from '../src/harness/process/sample.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { noKills } from '../src/harness/check/outcome.js';
import { ALL_STRATEGY_NAMES, type AnyStrategyName } from '../src/harness/engines/scripted/strategies.js';
import { judge } from '../src/harness/check/verdict.js';
import { failedChecks } from '../src/harness/check/checks.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { fullSuiteDescribe, fullSuiteTest } from './suite.js';

const CONCURRENCY = availableParallelism();
const baselines = new Baselines();

// The real tier's temp folders go to a folder of this file's own, so the test can see they are all removed.
let tempRoot = '';
let savedTmp: string | undefined;
beforeAll(() => {
  tempRoot = mkdtempSync(join(tmpdir(), 'killpoint-real-test-'));
  savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = tempRoot;
});
afterAll(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(tempRoot, { recursive: true, force: true });
});

async function expectAgreement(cases: TierCase[]): Promise<TierComparison[]> {
  const comparisons = await inPool(cases, CONCURRENCY, (c) => compareTiers(c, baselines));
  const failures = comparisons.filter((c) => c.mismatches.length > 0).map(formatMismatch);
  expect(failures, failures.join('\n')).toEqual([]);
  return comparisons;
}

function single(scenarioId: string, strategy: AnyStrategyName, points: number[], interleaving: number[] = []): TierCase[] {
  const scenario = lanternScenario(scenarioId);
  return points.map((k) => ({ scenario, strategy, schedule: { kills: [k], interleaving } }));
}

/**
 * Every STRIDE-th kill point of T01 under each of journal and journal+keys (offset apart: between
 * them, every STRIDE/2-th), besides the whole gap and the chosen ones: each kill point is two real
 * processes, and the stride is what is left once the points that matter are taken.
 */
const STRIDE = 16;

/** Every STRIDE-th kill point from `first`, every one in or next to a gap, the last event, and (`withChosen`) the chosen ones. */
function strideAndGaps(scenarioId: string, strategy: AnyStrategyName, first: number, withChosen: boolean): number[] {
  const events = simulate(lanternScenario(scenarioId), strategy, noKills()).lives[0]!.events;
  const points = new Set<number>([events.length - 1, ...(withChosen ? chosenKillPoints(events) : [])]);
  for (let k = first; k < events.length; k += STRIDE) points.add(k);
  events.forEach((e, i) => {
    // The gap runs from the commit until the record of it is saved.
    if (e.interval === 'gap' || e.kind === 'shop-commit') for (const k of [i - 1, i, i + 1]) if (k < events.length) points.add(k);
  });
  return [...points].sort((a, b) => a - b);
}

function chosen(scenarioId: string, strategy: AnyStrategyName, interleaving: number[] = []): TierCase[] {
  const events = simulate(lanternScenario(scenarioId), strategy, noKills(interleaving)).lives[0]!.events;
  return single(scenarioId, strategy, chosenKillPoints(events), interleaving);
}

/** The first event at which a variant's run differs from the run of the strategy it breaks. */
function departure(scenarioId: string, variant: AnyStrategyName, from: AnyStrategyName): number {
  const mine = simulate(lanternScenario(scenarioId), variant, noKills()).lives[0]!.events;
  const theirs = simulate(lanternScenario(scenarioId), from, noKills()).lives[0]!.events;
  let k = 0;
  while (k < mine.length && JSON.stringify(mine[k]) === JSON.stringify(theirs[k])) k++;
  return k;
}

/** The earliest single kill point at which a strategy breaks a promise (simulated), or null. */
function minimalFailing(scenarioId: string, strategy: AnyStrategyName): number | null {
  const scenario = lanternScenario(scenarioId);
  const baseline = simulate(scenario, strategy, noKills());
  const { promised } = scripted(strategy);
  for (let k = -1; k < baseline.lives[0]!.events.length; k++) {
    const outcome = simulate(scenario, strategy, { kills: [k], interleaving: [] });
    if (failedChecks({ scenario, outcome, verdict: judge(scenario, outcome, baseline) }).some((c) => promised.includes(c))) return k;
  }
  return null;
}

/**
 * A variant's own kill points, where it runs the same events as the strategy it breaks up to some
 * event: its chosen kill points from that event on, and its minimal failing kill point with the one
 * before it. The chosen ones before are the other strategy's (it takes them on the same task).
 */
function ownPoints(scenarioId: string, variant: AnyStrategyName, from: AnyStrategyName): number[] {
  const events = simulate(lanternScenario(scenarioId), variant, noKills()).lives[0]!.events;
  const start = departure(scenarioId, variant, from);
  const minimal = minimalFailing(scenarioId, variant);
  if (minimal === null) throw new Error(`${scenarioId} ${variant}: no kill point breaks a promise`);
  return [...new Set([...chosenKillPoints(events).filter((k) => k >= start), minimal - 1, minimal])].sort((a, b) => a - b);
}

function killPointOf(scenarioId: string, strategy: AnyStrategyName, kind: string, nth = 0): number {
  const events = simulate(lanternScenario(scenarioId), strategy, noKills()).lives[0]!.events;
  const found = events.filter((e) => e.kind === kind)[nth];
  if (!found) throw new Error(`${scenarioId} ${strategy}: no ${kind} number ${nth}`);
  return found.index;
}

describe('a stride through Dana\'s task and all of its gap, real and simulated agree', () => {
  // Keys change what a write carries, not which events a run has: out of the gap, journal+keys's
  // kill points are journal's, which journal takes (the chosen ones included); in the gap the keys
  // make the repeat harmless, and both take all of it.
  const strides = { journal: strideAndGaps('T01', 'journal', -1, true), 'journal+keys': strideAndGaps('T01', 'journal+keys', -1 + STRIDE / 2, false) };

  it('the two strides together take every eighth kill point of the run, the whole gap in each, and journal\'s the chosen ones', () => {
    const all = everyKillPoint(lanternScenario('T01'), 'journal');
    // The same events under both (keys change what a write carries, not when it happens).
    expect(everyKillPoint(lanternScenario('T01'), 'journal+keys')).toEqual(all);
    for (const k of all) if ((k + 1) % (STRIDE / 2) === 0) expect(new Set([...strides.journal, ...strides['journal+keys']]).has(k)).toBe(true);
    const events = simulate(lanternScenario('T01'), 'journal', noKills()).lives[0]!.events;
    const gap = events.filter((e) => e.interval === 'gap' || e.kind === 'shop-commit').map((e) => e.index);
    expect(gap.length).toBeGreaterThan(2);
    for (const points of Object.values(strides)) expect(points).toEqual(expect.arrayContaining(gap));
    expect(strides.journal).toEqual(expect.arrayContaining(chosenKillPoints(events)));
  });

  for (const strategy of ['journal', 'journal+keys'] as const) {
    fullSuiteTest(`T01 under ${strategy}`, async () => {
      const points = strides[strategy];
      // A real sample, not a handful: a sixteenth of the run and more, the whole gap included.
      expect(points.length).toBeGreaterThan(everyKillPoint(lanternScenario('T01'), strategy).length / STRIDE);
      const comparisons = await expectAgreement(single('T01', strategy, points));
      // Not a vacuous agreement: under journal the gap repeats the refund, with keys it never does.
      const repeated = comparisons.filter((c) => c.real.doneTwice.length > 0).length;
      if (strategy === 'journal') expect(repeated).toBeGreaterThan(0);
      else expect(repeated).toBe(0);
    });
  }
});

/**
 * Every other strategy and broken variant at its chosen kill points on one task each (T01 under
 * journal and journal+keys is the stride above), each task under several. Not T02 under journal:
 * journal's lives are compared on T01 (every chosen kill point and the whole gap), and T02 under
 * journal+random-keys runs journal's recovery, from the same saves, on Grace's refusal, retry and
 * hand-off (the random keys change what the writes carry, not when they happen). T03's rows run the
 * orders of its parallel calls that matter to them: the second call finishing first for the
 * variant that saves only the last message, the two journal saves overlapping for journal+keys
 * and the in-place journal. `npm run real` runs every pair at every kill point.
 */
const SECOND_FIRST = [1, 1, 1, 1];
// Both results arrive, both temp texts are written, then both renames: the second rename finds
// its temp file already renamed (it held the newer text), in memory and on disk alike.
const OVERLAPPING = [0, 1, 0, 1, 0, 1, 0];
// `like`: a variant whose run is that strategy's, event for event, up to some event (and that
// strategy runs on the same task here): its own kill points only (ownPoints).
const SAMPLE: { scenarioId: string; strategy: AnyStrategyName; interleaving?: number[]; like?: AnyStrategyName }[] = [
  { scenarioId: 'T01', strategy: 'restart' },
  { scenarioId: 'T01', strategy: 'workflow+random-keys' },
  { scenarioId: 'T01', strategy: 'journal/partial-answer', like: 'journal' },
  { scenarioId: 'T02', strategy: 'workflow+keys' },
  { scenarioId: 'T02', strategy: 'journal+random-keys' },
  { scenarioId: 'T02', strategy: 'journal/entry-before-write' },
  { scenarioId: 'T03', strategy: 'workflow' },
  { scenarioId: 'T03', strategy: 'journal+keys/last-message', interleaving: SECOND_FIRST },
  { scenarioId: 'T03', strategy: 'journal+keys', interleaving: OVERLAPPING },
  { scenarioId: 'T03', strategy: 'journal/in-place', interleaving: OVERLAPPING },
];

describe('the sample', () => {
  it('runs every strategy and broken variant, and each of the three tasks under several', () => {
    expect(new Set([...SAMPLE.map((r) => r.strategy), 'journal', 'journal+keys'])).toEqual(new Set(ALL_STRATEGY_NAMES));
    for (const id of ['T01', 'T02', 'T03']) expect(SAMPLE.filter((r) => r.scenarioId === id).length).toBeGreaterThanOrEqual(3);
  });
});

fullSuiteDescribe('chosen kill points of Dana\'s, Grace\'s and the parallel-call task, real and simulated agree', () => {
  for (const { scenarioId, strategy, like } of SAMPLE.filter((r) => r.interleaving === undefined)) {
    if (like !== undefined) continue;
    it(`${scenarioId} under ${strategy}`, async () => {
      await expectAgreement(chosen(scenarioId, strategy));
    });
  }

  for (const { scenarioId, strategy, like } of SAMPLE.filter((r) => r.like !== undefined)) {
    it(`${scenarioId} under ${strategy}: its chosen kill points from where its run departs from ${like}'s, and its minimal failing one`, async () => {
      const events = simulate(lanternScenario(scenarioId), strategy, noKills()).lives[0]!.events;
      const start = departure(scenarioId, strategy, like!);
      const points = ownPoints(scenarioId, strategy, like!);
      // Before the departure its chosen kill points are the other strategy's own, which it takes
      // on this task (T01 under journal, above); from the departure on, all of them are taken.
      expect(start).toBeGreaterThan(0);
      // The only strategy taken at its chosen kill points on a task besides the sample's rows.
      expect([scenarioId, like]).toEqual(['T01', 'journal']);
      expect(strideAndGaps('T01', 'journal', -1, true)).toEqual(expect.arrayContaining(chosenKillPoints(events).filter((k) => k < start)));
      expect(points).toEqual(expect.arrayContaining(chosenKillPoints(events).filter((k) => k >= start)));
      const minimal = minimalFailing(scenarioId, strategy)!;
      expect(points).toEqual(expect.arrayContaining([minimal - 1, minimal]));
      const comparisons = await expectAgreement(single(scenarioId, strategy, points));
      // Not a vacuous agreement: killed at its minimal failing kill point the real tier delivers half an answer, one before it does not.
      const partial = (k: number) => comparisons.find((c) => c.case.schedule.kills[0] === k)!.real.partialAnswerDelivered;
      expect([partial(minimal - 1), partial(minimal)]).toEqual([false, true]);
    });
  }

  it('T03 with the second parallel call finishing first, under journal+keys/last-message', async () => {
    const rows = SAMPLE.filter((r) => r.interleaving === SECOND_FIRST);
    expect(rows.length).toBeGreaterThan(0);
    await expectAgreement(rows.flatMap((r) => chosen(r.scenarioId, r.strategy, SECOND_FIRST)));
  });
});

describe('two parallel calls saving the journal at once', () => {
  it('the interleaving really overlaps the two saves', () => {
    const kinds = simulate(lanternScenario('T03'), 'journal+keys', noKills(OVERLAPPING)).lives[0]!.events
      .filter((e) => e.callId?.startsWith('call_get-orders') && e.kind.startsWith('journal')).map((e) => `${e.kind} ${e.callId}`);
    expect(kinds).toEqual(['journal-write call_get-orders_1', 'journal-write call_get-orders_2', 'journal-save call_get-orders_1', 'journal-save call_get-orders_2']);
  });

  fullSuiteTest('agree under journal+keys at its chosen kill points, and under the in-place journal at its writes (the overlapping two included)', async () => {
    const rows = SAMPLE.filter((r) => r.interleaving === OVERLAPPING);
    expect(rows.map((r) => r.strategy)).toEqual(['journal+keys', 'journal/in-place']);
    // The in-place journal runs journal+keys's events, and its files are journal+keys's but for
    // the keys, except while one of its writes is under way: killed there, its journal is torn. So
    // it is killed at each of its chosen kill points that is a write, at both overlapping writes
    // (where this order breaks it), before anything and at the last event; journal+keys takes every
    // chosen kill point.
    const events = simulate(lanternScenario('T03'), 'journal/in-place', noKills(OVERLAPPING)).lives[0]!.events;
    expect(simulate(lanternScenario('T03'), 'journal+keys', noKills(OVERLAPPING)).lives[0]!.events).toEqual(events);
    const isWrite = (k: number) => events[k]?.kind === 'journal-write';
    const overlapping = events.filter((e) => e.kind === 'journal-write' && e.callId?.startsWith('call_get-orders')).map((e) => e.index);
    expect(overlapping).toHaveLength(2);
    const chosenPoints = chosenKillPoints(events);
    const inPlace = [...new Set([-1, events.length - 1, ...chosenPoints.filter(isWrite), ...overlapping])].sort((a, b) => a - b);
    expect(chosenPoints.filter(isWrite).length).toBeGreaterThanOrEqual(3); // the first save's and one in the gap after each commit
    const comparisons = await expectAgreement([...chosen('T03', 'journal+keys', OVERLAPPING), ...single('T03', 'journal/in-place', inPlace, OVERLAPPING)]);
    // Not a vacuous agreement: killed mid-write, the in-place journal is torn and the resume fails, in both tiers.
    const torn = comparisons.filter((c) => c.case.strategy === 'journal/in-place' && c.real.recoveryError !== null).map((c) => c.case.schedule.kills[0]);
    expect(torn).toEqual(expect.arrayContaining(overlapping));
  });
});

fullSuiteDescribe('second kills, during the recovery', () => {
  it('agree when the recovery is killed again, before anything and in its own gap', async () => {
    const cases: TierCase[] = [];
    // Not restart: nothing of its agent survives a kill, so a second kill is a first kill of a run
    // from the top (on the shop as the first life left it), as its chosen kill points already are.
    for (const strategy of ['journal', 'workflow'] as const) {
      const scenario = lanternScenario('T01');
      const commit = killPointOf('T01', strategy, 'shop-commit');
      // Before anything, and at the result of the refund sent again (under journal and workflow,
      // the recovery's own gap: it repeats the refund, then is killed before recording it).
      for (const second of [-1, 2]) cases.push({ scenario, strategy, schedule: { kills: [commit, second], interleaving: [] } });
      cases.push({ scenario, strategy, schedule: { kills: [commit, -1, 3], interleaving: [] } });
    }
    await expectAgreement(cases);
  });
});

describe('kills inside a journal save', () => {
  it('between the temp write and the rename: the old journal stays whole and the run ends as the simulation says', async () => {
    const k = killPointOf('T01', 'journal', 'journal-write', 3);
    const [cmp] = await expectAgreement(single('T01', 'journal', [k]));
    expect(cmp!.real.recoveryError).toBeNull();
    expect(cmp!.real.sameAnswer).toBe(true);
    expect(cmp!.real.extraWrites).toBe(0);
  });

  fullSuiteTest('in the middle of an in-place write: the resume fails with an error naming the journal file, in both tiers', async () => {
    const k = killPointOf('T01', 'journal/in-place', 'journal-write', 3);
    const [cmp] = await expectAgreement(single('T01', 'journal/in-place', [k]));
    const outcome = await realKill(lanternScenario('T01'), 'journal/in-place', { kills: [k], interleaving: [] });
    expect(cmp!.real.recoveryError).toMatch(/^cannot resume from the journal at \/.*\/journal\.json \(written in place\): not valid JSON/);
    expect(cmp!.simulated.recoveryError).toMatch(/^cannot resume from the journal at in-memory journal \(written in place\): not valid JSON/);
    // Never resumed from garbage, never started over: the second life stopped before its first event.
    expect(outcome.lives.map((l) => [l.end, l.events.length])).toEqual([['killed', k + 1], ['failed', 0]]);
    expect(cmp!.real.answer).toBeNull();
  });
});

describe('the differential check can fail', () => {
  it('names the fields where two runs differ', () => {
    const scenario = lanternScenario('T01');
    const k = killPointOf('T01', 'journal', 'shop-commit');
    const run = (strategy: AnyStrategyName) => {
      const outcome = simulate(scenario, strategy, { kills: [k], interleaving: [] });
      return { outcome, verdict: judge(scenario, outcome, simulate(scenario, strategy, noKills())) };
    };
    const mismatches = tierMismatches(run('journal+keys'), run('journal'));
    expect(mismatches.some((m) => m.startsWith('doneTwice: simulated [], real ["refund O-1042/L1'))).toBe(true);
    expect(mismatches.some((m) => m.startsWith('extraWrites: simulated 0, real 1'))).toBe(true);
    expect(tierMismatches(run('journal'), run('journal'))).toEqual([]);
  });
});

describe('the real tier by equivalence (a child killed at every kill point, one recovery per distinct state of the real files)', () => {
  // A one-refund task, so that every kill point stays a few dozen processes; `npm run real` explores
  // every bundled task under every strategy this way, with cold and with warm children.
  it('every kill point of a one-refund task under journal agrees with the simulation, from fewer processes than running each from scratch', async () => {
    const task = loadScenarioFile(join(import.meta.dirname, 'fixtures', 'one-refund.json'));
    const spawned: number[] = [];
    onChildSpawned((pid) => spawned.push(pid));
    let result;
    try {
      result = await compareTiersByEquivalence(task, 'journal', [], CONCURRENCY);
    } finally {
      onChildSpawned(null);
    }
    const { comparisons, reduction } = result;
    const killPoints = everyKillPoint(task, 'journal');
    expect(comparisons.map((c) => c.case.schedule.kills[0])).toEqual(killPoints);
    expect(comparisons.filter((c) => c.mismatches.length > 0).map(formatMismatch)).toEqual([]);
    // The gap is found as from scratch: the refund done twice right after its commit.
    expect(comparisons.some((c) => c.real.doneTwice.length > 0)).toBe(true);
    // The root life (which is the baseline), a killed child per event, one recovery per distinct state.
    expect(spawned.length).toBe(1 + (killPoints.length - 1) + (reduction.livesRun - 1));
    expect(reduction.childrenKilled).toBe(killPoints.length - 1);
    expect(spawned.length).toBeLessThan(1.5 * killPoints.length);
  });
});

describe('the real tier cleans up', () => {
  it('leaves no child running and no temp folder behind', () => {
    expect(liveChildCount()).toBe(0);
    expect(readdirSync(tempRoot)).toEqual([]);
  });
});
