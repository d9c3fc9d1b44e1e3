// The differential check: two systems that should behave alike must agree, kill point by kill
// point. For a scenario and a kill schedule, run both, judge each against its own baseline, and
// compare the verdicts field by field, and the lives' events too. Its first use: the simulated
// tier must tell the truth, so the scripted engine in process is compared with the same strategy
// in child processes killed with SIGKILL. The only difference allowed there is where the journal
// lives (in memory or a file path), which a recovery error names.

import type { Scenario } from '../../model/scenario.js';
import { noKills, type RunOutcome, type Schedule } from '../check/outcome.js';
import { judge, type Verdict } from '../check/verdict.js';
import type { SystemUnderTest } from '../engine.js';
import { scripted, scriptedProcess } from '../engines/scripted/engine.js';
import type { AnyStrategyName } from '../engines/scripted/strategies.js';
import type { ProcessLivesOptions } from '../process/process-lives.js';
import { exploreByEquivalence, type ReductionFigures } from '../search/equivalence.js';
import { runSchedule, withSession } from '../session.js';

export { inPool } from '../process/pool.js';

export interface TierCase {
  scenario: Scenario;
  strategy: AnyStrategyName;
  schedule: Schedule;
}

export interface TierComparison {
  case: TierCase;
  simulated: Verdict;
  real: Verdict;
  /** One line per field that differs; empty when the tiers agree. */
  mismatches: string[];
}

/** Every single kill point of the simulated baseline: -1 (before anything) to its last event. */
export function everyKillPoint(scenario: Scenario, strategy: AnyStrategyName, interleaving: number[] = []): number[] {
  const events = runSchedule(scripted(strategy), scenario, noKills(interleaving)).lives[0]!.events.length;
  return Array.from({ length: events + 1 }, (_, i) => i - 1);
}

const JOURNAL_LOCATION = /the journal at [^:]*: /g;

/** The verdict with the journal's location replaced, the one thing the tiers may differ in. */
function comparable(v: Verdict): Record<string, unknown> {
  return { ...v, recoveryError: v.recoveryError?.replace(JOURNAL_LOCATION, 'the journal at <journal>: ') ?? null };
}

function lifeShape(outcome: RunOutcome): unknown {
  return outcome.lives.map((l) => ({ end: l.end, killedAfter: l.killedAfter, errorKind: l.errorKind, events: l.events }));
}

export function describeCase(c: TierCase): string {
  const interleaving = c.schedule.interleaving.length > 0 ? ` interleaving [${c.schedule.interleaving.join(',')}]` : '';
  return `${c.scenario.id} ${c.strategy} kill point${c.schedule.kills.length === 1 ? '' : 's'} [${c.schedule.kills.join(',')}]${interleaving}`;
}

/** The command that replays one case of the differential check. */
export function tierReplayCommand(c: TierCase): string {
  const interleaving = c.schedule.interleaving.length > 0 ? ` --interleaving ${c.schedule.interleaving.join(',')}` : '';
  return `npx tsx bench/real.ts --scenario ${c.scenario.id} --strategy '${c.strategy}' --kills ${c.schedule.kills.join(',')}${interleaving}`;
}

/** Each system's baseline (its run never killed), computed once per scenario and interleaving. */
export class Baselines {
  private readonly runs = new Map<string, Promise<RunOutcome>>();

  of(scenario: Scenario, system: SystemUnderTest, interleaving: number[]): Promise<RunOutcome> {
    const key = `${system.engine}|${system.name}|${system.inProcess}|${scenario.id}|${interleaving.join(',')}`;
    let run = this.runs.get(key);
    if (!run) {
      run = Promise.resolve(runSchedule(system, scenario, noKills(interleaving)));
      this.runs.set(key, run);
    }
    return run;
  }
}

export interface SystemComparison {
  a: { outcome: RunOutcome; verdict: Verdict };
  b: { outcome: RunOutcome; verdict: Verdict };
  /** One line per field that differs; empty when the two agree. */
  mismatches: string[];
}

/**
 * Runs one schedule on two systems that should behave alike (each in a session of its own), judges
 * each against its own baseline, and compares the verdicts field by field and the lives event by event.
 */
export async function compareSystems(scenario: Scenario, a: SystemUnderTest, b: SystemUnderTest, schedule: Schedule, baselines: Baselines): Promise<SystemComparison> {
  const [aOutcome, bOutcome] = await Promise.all([runSchedule(a, scenario, schedule), runSchedule(b, scenario, schedule)]);
  const aVerdict = judge(scenario, aOutcome, await baselines.of(scenario, a, schedule.interleaving));
  const bVerdict = judge(scenario, bOutcome, await baselines.of(scenario, b, schedule.interleaving));
  const left = { outcome: aOutcome, verdict: aVerdict };
  const right = { outcome: bOutcome, verdict: bVerdict };
  return { a: left, b: right, mismatches: tierMismatches(left, right) };
}

/** The scripted engine in process against the same strategy in processes killed with SIGKILL. */
export async function compareTiers(c: TierCase, baselines: Baselines): Promise<TierComparison> {
  const cmp = await compareSystems(c.scenario, scripted(c.strategy), scriptedProcess(c.strategy), c.schedule, baselines);
  return { case: c, simulated: cmp.a.verdict, real: cmp.b.verdict, mismatches: cmp.mismatches };
}

/** Every field in which two tiers' runs differ, one line each; empty when they agree. */
export function tierMismatches(simulated: { outcome: RunOutcome; verdict: Verdict }, real: { outcome: RunOutcome; verdict: Verdict }): string[] {
  const mismatches: string[] = [];
  const s = comparable(simulated.verdict);
  const r = comparable(real.verdict);
  for (const field of new Set([...Object.keys(s), ...Object.keys(r)])) {
    const a = JSON.stringify(s[field]);
    const b = JSON.stringify(r[field]);
    if (a !== b) mismatches.push(`${field}: simulated ${a}, real ${b}`);
  }
  if (JSON.stringify(lifeShape(simulated.outcome)) !== JSON.stringify(lifeShape(real.outcome))) mismatches.push('lives: the events or the ends of the lives differ');
  return mismatches;
}

export function formatMismatch(cmp: TierComparison): string {
  return [`real and simulated tiers disagree: ${describeCase(cmp.case)}`, ...cmp.mismatches.map((m) => `  ${m}`), `  replay: ${tierReplayCommand(cmp.case)}`].join('\n');
}

/**
 * The real tier by equivalence: every single kill point of a scenario under a strategy, a child
 * killed at each, one recovery per distinct state of the real files (src/harness/process/process-lives.ts);
 * each kill point's run is compared with the simulation's at the same schedule, as compareTiers
 * compares a run from scratch. `options` chooses how its lives' processes start (cold unless
 * KILLPOINT_WARM_CHILDREN=1; the bench compares warm with cold).
 */
export async function compareTiersByEquivalence(scenario: Scenario, strategy: AnyStrategyName, interleaving: number[], concurrency: number, options?: ProcessLivesOptions): Promise<{ comparisons: TierComparison[]; reduction: ReductionFigures }> {
  const real = scriptedProcess(strategy, options);
  // The simulation's runs share one session, as an exploration's do.
  return withSession(scripted(strategy), scenario, async (simulated) => {
    const simulatedBaseline = simulated.run(noKills(interleaving));
    const comparisons: TierComparison[] = [];
    // The real baseline is the exploration's own first life, run once.
    const result = await exploreByEquivalence(scenario, real, { orders: [interleaving] }, 1, (c) => {
      const schedule = { kills: c.kills, interleaving };
      const outcome = simulated.run(schedule);
      const left = { outcome, verdict: judge(scenario, outcome, simulatedBaseline) };
      const right = { outcome: c.outcome(), verdict: c.verdict() };
      comparisons.push({ case: { scenario, strategy, schedule }, simulated: left.verdict, real: right.verdict, mismatches: tierMismatches(left, right) });
    }, { concurrency });
    return { comparisons, reduction: result.reduction };
  });
}
