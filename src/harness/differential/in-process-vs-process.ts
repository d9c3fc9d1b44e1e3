// A real engine killed in process against the same engine killed by SIGKILL, kill point by kill
// point: the in-process tier (src/harness/in-process/) is trusted only as far as this comparison
// holds. Both tiers run the same engine code on the same state folders; they may differ only in
// how the kill lands (stores closed and the life abandoned, or the process gone). So each kill
// point must give the same verdict, the same failed checks and the same lives (their events, how
// each ended), temp folder names aside.

import type { CheckName } from '../check/checks.js';
import type { LifeRecord, RunOutcome } from '../check/outcome.js';
import { failedChecks } from '../check/checks.js';
import { eventIdentities } from '../check/kill-points.js';
import { judge, type Verdict } from '../check/verdict.js';
import type { SystemUnderTest } from '../engine.js';
import type { Scenario } from '../../model/scenario.js';
import { inPool } from '../process/pool.js';
import { exploreByEquivalence } from '../search/equivalence.js';
import { runSchedule } from '../session.js';

export interface TierComparison {
  killPoints: number;
  /** One line per kill point whose two tiers disagree, naming the task, system, kill point and what differs. */
  disagreements: string[];
  /** Real time each tier took for the same kill points (baselines included). */
  inProcessMs: number;
  processMs: number;
}

interface PointResult {
  failed: readonly CheckName[];
  verdict: Verdict;
  lives: readonly LifeRecord[];
}

const TEMP_PATH = /\/[^\s"':]*killpoint-[^\s"':]*/g;

/** What the two tiers must agree on at one kill point, as text (temp folders renamed). */
function comparable(r: PointResult): string {
  const lives = r.lives.map((l) => ({ end: l.end, killedAfter: l.killedAfter, errorKind: l.errorKind, error: l.error, events: l.events }));
  return JSON.stringify({ failed: r.failed, verdict: sameNamed(r.verdict), lives }).replace(TEMP_PATH, '<temp>');
}

/** The verdict without the system's name, which says the tier for a user's module (--tier process). */
function sameNamed(v: Verdict): Omit<Verdict, 'strategy'> {
  const { strategy: _name, ...rest } = v;
  return rest;
}

/** Which fields differ, for the report line. */
function whatDiffers(a: PointResult, b: PointResult): string {
  const fields: string[] = [];
  if (JSON.stringify(a.failed) !== JSON.stringify(b.failed)) fields.push(`failed checks: in process [${a.failed.join(', ')}], process [${b.failed.join(', ')}]`);
  for (const key of Object.keys(sameNamed(a.verdict)) as (keyof Verdict)[]) {
    const x = JSON.stringify(a.verdict[key]).replace(TEMP_PATH, '<temp>');
    const y = JSON.stringify(b.verdict[key]).replace(TEMP_PATH, '<temp>');
    if (x !== y) fields.push(`${key}: in process ${x}, process ${y}`);
  }
  if (fields.length === 0) fields.push('the lives differ (their events or how they ended)');
  return fields.join('; ');
}

/**
 * Each kill point's result on one tier: every single kill point by equivalence (the explorer the
 * check command runs), or the given ones each run from scratch.
 */
async function resultsOn(scenario: Scenario, system: SystemUnderTest, killPoints: readonly number[] | 'every', concurrency: number, interleaving: readonly number[]): Promise<{ results: Map<number, PointResult>; identities: string[] }> {
  const baseline = await runSchedule(system, scenario, { kills: [], interleaving: [...interleaving] });
  const identities = eventIdentities(baseline.lives[0]!.events);
  const results = new Map<number, PointResult>();
  const keep = (k: number, outcome: RunOutcome, verdict: Verdict, failed: readonly CheckName[]) => results.set(k, { failed, verdict, lives: outcome.lives });
  // A system whose lives cannot start from a saved state (a user's module) runs each point from scratch.
  if (killPoints === 'every' && !(await offersLives(system, scenario))) killPoints = Array.from({ length: identities.length + 1 }, (_, i) => i - 1);
  if (killPoints === 'every') {
    await exploreByEquivalence(scenario, system, [{ picks: [...interleaving], baseline }], 1, (c) => keep(c.kills[0]!, c.outcome(), c.verdict(), c.failed), { concurrency });
  } else {
    await inPool([...killPoints], concurrency, async (k) => {
      const outcome = await runSchedule(system, scenario, { kills: [k], interleaving: [...interleaving] });
      const verdict = judge(scenario, outcome, baseline);
      keep(k, outcome, verdict, failedChecks({ scenario, outcome, verdict }));
    });
  }
  return { results, identities };
}

/**
 * The same system with sessions that offer no lives: every schedule run from scratch, the ground
 * truth an exploration by equivalence is held to.
 */
export function fromScratch(system: SystemUnderTest): SystemUnderTest {
  return {
    ...system,
    open: (scenario) => {
      const { lives: _lives, ...session } = system.open(scenario);
      return session;
    },
  };
}

async function offersLives(system: SystemUnderTest, scenario: Scenario): Promise<boolean> {
  const session = system.open(scenario);
  try {
    return session.lives !== undefined;
  } finally {
    await session.close();
  }
}

/**
 * Compares the two tiers of one system on one task, at every single kill point or at those given,
 * with the parallel calls in the order `interleaving` picks (default: the first ready each time).
 * `inProcessEvery`: the in-process tier explores every kill point as a check does (by equivalence,
 * each life's kill points cut from one repeat of it) and is compared at the given ones only, which
 * the process tier runs each from scratch: a sample of the explorer's in-process path at the cost
 * of a few processes.
 */
export async function compareTiers(scenario: Scenario, inProcess: SystemUnderTest, process: SystemUnderTest, options: { concurrency: number; killPoints?: readonly number[]; interleaving?: readonly number[]; inProcessEvery?: boolean }): Promise<TierComparison> {
  const points = options.killPoints ?? 'every';
  const interleaving = options.interleaving ?? [];
  // real clock: how long each tier took is the figure the differential reports beside its verdicts.
  let started = performance.now();
  // Both tiers as a check runs them: side by side (in process, on threads of lives).
  const a = await resultsOn(scenario, inProcess, options.inProcessEvery ? 'every' : points, options.concurrency, interleaving);
  const inProcessMs = performance.now() - started;
  started = performance.now();
  const b = await resultsOn(scenario, process, points, options.concurrency, interleaving);
  const processMs = performance.now() - started;
  const disagreements: string[] = [];
  const order = interleaving.length === 0 ? '' : ` (picks ${interleaving.join(',')})`;
  const where = (k: number) => `${scenario.id} ${inProcess.name}${order} kill point ${k} (${k < 0 ? 'start' : (b.identities[k] ?? a.identities[k] ?? '?')})`;
  if (JSON.stringify(a.identities) !== JSON.stringify(b.identities)) disagreements.push(`${scenario.id} ${inProcess.name}: the runs never killed differ: in process ${a.identities.length} events, process ${b.identities.length}`);
  const all = options.inProcessEvery && points !== 'every' ? [...points] : [...new Set([...a.results.keys(), ...b.results.keys()])].sort((x, y) => x - y);
  for (const k of all) {
    const x = a.results.get(k);
    const y = b.results.get(k);
    if (x === undefined || y === undefined) disagreements.push(`${where(k)}: judged ${x === undefined ? 'by SIGKILL only' : 'in process only'}`);
    else if (comparable(x) !== comparable(y)) disagreements.push(`${where(k)}: ${whatDiffers(x, y)}`);
  }
  return { killPoints: all.length, disagreements, inProcessMs, processMs };
}
