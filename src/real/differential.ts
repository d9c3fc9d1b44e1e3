// The differential check: the simulated tier must tell the truth. For a scenario, a strategy and a
// kill schedule, run both tiers, judge each against its own tier's baseline, and compare the
// verdicts field by field, and the lives' events too. The only difference allowed is where the
// journal lives (in memory or a file path), which a recovery error names.

import type { Scenario } from '../model/scenario.js';
import { simulate } from '../engines/scripted/simulate.js';
import { noKills, type RunOutcome, type Schedule } from '../check/outcome.js';
import type { AnyStrategyName } from '../engines/scripted/strategies.js';
import { judge, type Verdict } from '../check/verdict.js';
import { realKill } from '../engines/scripted/process/real-kill.js';

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
  const events = simulate(scenario, strategy, noKills(interleaving)).lives[0]!.events.length;
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
export function replayCommand(c: TierCase): string {
  const interleaving = c.schedule.interleaving.length > 0 ? ` --interleaving ${c.schedule.interleaving.join(',')}` : '';
  return `npx tsx bench/real.ts --scenario ${c.scenario.id} --strategy '${c.strategy}' --kills ${c.schedule.kills.join(',')}${interleaving}`;
}

/** The baselines of both tiers, computed once per scenario, strategy and interleaving. */
export class Baselines {
  private readonly real = new Map<string, Promise<RunOutcome>>();
  private readonly simulated = new Map<string, RunOutcome>();

  private key(c: TierCase): string {
    return `${c.scenario.id}|${c.strategy}|${c.schedule.interleaving.join(',')}`;
  }

  of(c: TierCase): { simulated: RunOutcome; real: Promise<RunOutcome> } {
    const key = this.key(c);
    let simulated = this.simulated.get(key);
    if (!simulated) {
      simulated = simulate(c.scenario, c.strategy, noKills(c.schedule.interleaving));
      this.simulated.set(key, simulated);
    }
    let real = this.real.get(key);
    if (!real) {
      real = realKill(c.scenario, c.strategy, noKills(c.schedule.interleaving));
      this.real.set(key, real);
    }
    return { simulated, real };
  }
}

export async function compareTiers(c: TierCase, baselines: Baselines): Promise<TierComparison> {
  const base = baselines.of(c);
  const realOutcome = await realKill(c.scenario, c.strategy, c.schedule);
  const simOutcome = simulate(c.scenario, c.strategy, c.schedule);
  const simulated = judge(c.scenario, simOutcome, base.simulated);
  const real = judge(c.scenario, realOutcome, await base.real);
  return { case: c, simulated, real, mismatches: tierMismatches({ outcome: simOutcome, verdict: simulated }, { outcome: realOutcome, verdict: real }) };
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

/** Runs `work` over `items` with at most `limit` in flight, results in input order. */
export async function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

export function formatMismatch(cmp: TierComparison): string {
  return [`real and simulated tiers disagree: ${describeCase(cmp.case)}`, ...cmp.mismatches.map((m) => `  ${m}`), `  replay: ${replayCommand(cmp.case)}`].join('\n');
}
