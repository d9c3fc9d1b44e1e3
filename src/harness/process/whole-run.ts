// A whole run under a kill schedule, for every engine whose lives are processes, written once: a
// fresh temp folder, the run's durable state prepared in it, then one child per life (the one life
// loop), each given the interleaving picks its predecessors left, and at the end what the stores
// hold. An engine supplies only how a fresh state is made, how one life runs and what its stores
// hold: the same three things the explorer by equivalence asks of it (ProcessTier), so a life run
// whole and a life run from a saved state are one function.

import { join } from 'node:path';
import type { LifeRecord, RunOutcome, Schedule } from '../check/outcome.js';
import type { Conversation } from '../../model/conversation.js';
import type { Scenario } from '../../model/scenario.js';
import { runLives } from '../life-loop.js';
import { picksLeft } from './process-life.js';
import { Interrupted, wasInterrupted, withTempDir } from './processes.js';
import type { LifeTimes } from '../life-time-limit.js';
import type { TierLife, TierLifeRequest } from './process-lives.js';
import { requirePackages, type PackageNeeds } from './package-paths.js';

/** What a whole run asks of an engine (a ProcessTier gives it). */
export interface WholeRunTier {
  /** Names the engine and system in temp folders (no spaces). */
  name: string;
  /** The packages its lives load, checked before the first (a missing one is bad input naming it). */
  needs?: PackageNeeds;
  /** Writes a fresh run's durable state into an empty folder. */
  prepare(scenario: Scenario, stateDir: string): void;
  /** Runs one life, in a process, from the state in `stateDir`. */
  life(scenario: Scenario, request: TierLifeRequest): Promise<TierLife>;
  /** What the stores of `stateDir` hold once the run's last life has ended (the lives, for an engine whose stores depend on how they ended). */
  stores(scenario: Scenario, stateDir: string, lives: readonly LifeRecord[]): Pick<RunOutcome, 'delivered' | 'writes' | 'refusals' | 'shop'>;
}

/**
 * Runs `scenario` under `schedule` on `tier`, one process per life; `systemName` is the outcome's
 * strategy. `times`: the session's (processSession), which a run never killed adds to and which
 * limits each life (TierLifeRequest.timeoutMs); without it, each life has the default limit.
 */
export function runWholeInProcesses(tier: WholeRunTier, scenario: Scenario, systemName: string, schedule: Schedule, times?: LifeTimes): Promise<RunOutcome> {
  return withTempDir(`killpoint-${tier.name.replaceAll('/', '-')}-`, async (dir) => {
    const stateDir = join(dir, 'state');
    requirePackages(tier.needs);
    tier.prepare(scenario, stateDir);
    const picksTaken: number[] = [];
    const pickWidths: number[] = [];
    let finalConversation: Conversation | null = null;
    const lives = await runLives(schedule.kills, async (lifeIndex, killAfter): Promise<LifeRecord> => {
      if (wasInterrupted()) throw new Interrupted(`not starting ${tier.name} ${scenario.id} life ${lifeIndex}`);
      const run = () => tier.life(scenario, { runDir: dir, stateDir, lifeIndex, killAfter, picks: picksLeft(schedule.interleaving, picksTaken.length), ...(times === undefined ? {} : { timeoutMs: times.limitMs() }) });
      // A run never killed sets the time limit of the session's other lives (life-time-limit.ts).
      const life = await (times !== undefined && schedule.kills.length === 0 ? times.timed(run) : run());
      picksTaken.push(...life.picks);
      pickWidths.push(...life.widths);
      if (life.conversation !== null) finalConversation = life.conversation;
      return life.record;
    });
    return { scenarioId: scenario.id, strategy: systemName, schedule, lives, picksTaken, pickWidths, ...tier.stores(scenario, stateDir, lives), finalConversation };
  });
}
