// The real tier against the simulation, on a fixed sample. The full sweep, every single kill point
// of every bundled scenario under every strategy and broken variant, from scratch and by
// equivalence (about half an hour), is `npm run real` (bench/real.ts); `npm run bench` runs T01
// under journal+keys of it. Here:
// - Dana's task (T01) under journal and journal+keys: every eighth kill point of each, the two
//   strides offset so that between them every fourth kill point of the run is taken, every kill
//   point in or next to the gap (from the refund's start to the first event after its record is
//   saved), the chosen kill points and the last (the delivered answer);
// - the chosen kill points (sample.ts: before anything, mid first reply, mid answer, the first
//   save's two moments, every commit and everything in the gap after it, the last event) of every
//   other strategy and broken variant, each on one of Dana's, Grace's (T02: a refused refund, its
//   retry and a hand-off) and the parallel-call task (T03), so that every strategy runs once and
//   every task under several (SAMPLE below; T03's rows run other orders of its parallel calls);
// - second kills, during the recovery (before anything, and in its own gap), and a third;
// - the real tier by equivalence at every kill point of a one-refund task.
// A disagreement names the scenario, the strategy and the kill point, and prints the replay command.

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

/** Every STRIDE-th kill point of T01 under each of journal and journal+keys (offset apart: between them, every STRIDE/2-th). */
const STRIDE = 8;

/** Every STRIDE-th kill point from `first`, every one in or next to a gap, the chosen ones and the last event. */
function strideAndGaps(scenarioId: string, strategy: AnyStrategyName, first: number): number[] {
  const events = simulate(lanternScenario(scenarioId), strategy, noKills()).lives[0]!.events;
  const points = new Set<number>([events.length - 1, ...chosenKillPoints(events)]);
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

function killPointOf(scenarioId: string, strategy: AnyStrategyName, kind: string, nth = 0): number {
  const events = simulate(lanternScenario(scenarioId), strategy, noKills()).lives[0]!.events;
  const found = events.filter((e) => e.kind === kind)[nth];
  if (!found) throw new Error(`${scenarioId} ${strategy}: no ${kind} number ${nth}`);
  return found.index;
}

describe('a stride through Dana\'s task and all of its gap, real and simulated agree', () => {
  const strides = { journal: strideAndGaps('T01', 'journal', -1), 'journal+keys': strideAndGaps('T01', 'journal+keys', -1 + STRIDE / 2) };

  it('the two strides together take every fourth kill point of the run, the whole gap in each', () => {
    const all = everyKillPoint(lanternScenario('T01'), 'journal');
    // The same events under both (keys change what a write carries, not when it happens).
    expect(everyKillPoint(lanternScenario('T01'), 'journal+keys')).toEqual(all);
    for (const k of all) if ((k + 1) % (STRIDE / 2) === 0) expect(new Set([...strides.journal, ...strides['journal+keys']]).has(k)).toBe(true);
    const events = simulate(lanternScenario('T01'), 'journal', noKills()).lives[0]!.events;
    const gap = events.filter((e) => e.interval === 'gap' || e.kind === 'shop-commit').map((e) => e.index);
    expect(gap.length).toBeGreaterThan(2);
    for (const points of Object.values(strides)) expect(points).toEqual(expect.arrayContaining(gap));
  });

  for (const strategy of ['journal', 'journal+keys'] as const) {
    it(`T01 under ${strategy}`, async () => {
      const points = strides[strategy];
      // A real sample, not a handful: an eighth of the run and more, the whole gap included.
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
 * journal and journal+keys is the stride above), each task under several; T03's rows run the
 * orders of its parallel calls that matter to them: the second call finishing first for the
 * variant that saves only the last message, the two journal saves overlapping for journal+keys
 * and the in-place journal. `npm run real` runs every pair at every kill point.
 */
const SECOND_FIRST = [1, 1, 1, 1];
// Both results arrive, both temp texts are written, then both renames: the second rename finds
// its temp file already renamed (it held the newer text), in memory and on disk alike.
const OVERLAPPING = [0, 1, 0, 1, 0, 1, 0];
const SAMPLE: { scenarioId: string; strategy: AnyStrategyName; interleaving?: number[] }[] = [
  { scenarioId: 'T01', strategy: 'restart' },
  { scenarioId: 'T01', strategy: 'workflow+random-keys' },
  { scenarioId: 'T01', strategy: 'journal/partial-answer' },
  { scenarioId: 'T02', strategy: 'journal' },
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

describe('chosen kill points of Dana\'s, Grace\'s and the parallel-call task, real and simulated agree', () => {
  for (const { scenarioId, strategy } of SAMPLE.filter((r) => r.interleaving === undefined)) {
    it(`${scenarioId} under ${strategy}`, async () => {
      await expectAgreement(chosen(scenarioId, strategy));
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

  it('agree under journal+keys and the in-place journal', async () => {
    const rows = SAMPLE.filter((r) => r.interleaving === OVERLAPPING);
    expect(rows.map((r) => r.strategy)).toEqual(['journal+keys', 'journal/in-place']);
    await expectAgreement(rows.flatMap((r) => chosen(r.scenarioId, r.strategy, OVERLAPPING)));
  });
});

describe('second kills, during the recovery', () => {
  it('agree when the recovery is killed again, before anything and in its own gap', async () => {
    const cases: TierCase[] = [];
    for (const strategy of ['journal', 'workflow', 'restart'] as const) {
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

  it('in the middle of an in-place write: the resume fails with an error naming the journal file, in both tiers', async () => {
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
