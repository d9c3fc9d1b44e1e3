// The simulated kill tier. Fault model: a kill lands between two events (never inside a shop
// transaction, which is synchronous and ends before its commit event); after it, nothing of the
// life runs again, its memory is gone, and the next life starts from the durable stores alone.
// A kill schedule holds one kill point per life: life i dies right after its event kills[i]
// (-1: before its first event). The life after the last kill runs to the end.

import { conversationProblem } from '../../model/conversation.js';
import type { Scenario } from '../../model/scenario.js';
import { ConversationRejected, ScriptedModel } from '../../model/scripted-model.js';
import type { RefusalRecord, ShopSnapshot, WriteRecord } from '../../model/shop.js';
import { MAX_EVENTS_PER_LIFE, type RunEvent } from '../../check/events.js';
import { JournalCorrupt } from './journal-format.js';
import { agentLife, Interleaving, type LifeResult } from './runner.js';
import { strategy as strategyNamed, type AnyStrategyName } from './strategies.js';
import { reusableMemoryStores } from './reusable-stores.js';
import type { DurableStores } from './stores.js';

export interface Schedule {
  kills: number[];
  /** Picks among parallel tool calls (see Interleaving); empty for the default order. */
  interleaving: number[];
}

export interface LifeRecord {
  events: RunEvent[];
  /** killed: the schedule killed it; finished: it ran to its end; failed: it stopped on an error. */
  end: 'killed' | 'finished' | 'failed';
  killedAfter: number | null;
  error: string | null;
  errorKind: 'conversation-rejected' | 'journal-corrupt' | null;
}

export interface RunOutcome {
  scenarioId: string;
  strategy: AnyStrategyName;
  schedule: Schedule;
  lives: LifeRecord[];
  /** The interleaving picks actually taken (a replay with these gives the same run). */
  picksTaken: number[];
  /** How many calls could advance at each pick taken (same length as picksTaken). */
  pickWidths: number[];
  delivered: string[];
  writes: WriteRecord[];
  refusals: RefusalRecord[];
  shop: ShopSnapshot;
  /** The conversation of the life that finished, or null when none did. */
  finalConversation: LifeResult['conversation'] | null;
}

export function noKills(interleaving: number[] = []): Schedule {
  return { kills: [], interleaving };
}

/** Runs a scenario under a strategy and a kill schedule with in-memory durable stores. */
export function simulate(scenario: Scenario, strategyName: AnyStrategyName, schedule: Schedule, model = new ScriptedModel(scenario)): RunOutcome {
  const { stores, release } = reusableMemoryStores(scenario.shop, strategyNamed(strategyName).journalWrite);
  try {
    return runLives(scenario, strategyName, schedule, stores, model);
  } finally {
    release();
  }
}

export function runLives(scenario: Scenario, strategyName: AnyStrategyName, schedule: Schedule, stores: DurableStores, model: ScriptedModel): RunOutcome {
  const strategy = strategyNamed(strategyName);
  const interleaving = new Interleaving(schedule.interleaving);
  const lives: LifeRecord[] = [];
  let finalConversation: LifeResult['conversation'] | null = null;
  for (let lifeIndex = 0; lifeIndex <= schedule.kills.length; lifeIndex++) {
    const killAfter = lifeIndex < schedule.kills.length ? schedule.kills[lifeIndex]! : null;
    const life: LifeRecord = { events: [], end: 'finished', killedAfter: null, error: null, errorKind: null };
    lives.push(life);
    if (killAfter !== null && killAfter < 0) {
      life.end = 'killed';
      life.killedAfter = -1;
      continue;
    }
    const events = agentLife({ scenario, model, strategy, stores, lifeIndex, interleaving });
    try {
      for (;;) {
        const step = events.next();
        if (step.done) {
          if (step.value) finalConversation = step.value.conversation;
          break;
        }
        life.events.push(step.value);
        if (life.events.length > MAX_EVENTS_PER_LIFE) throw new Error(`life ${lifeIndex}: more than ${MAX_EVENTS_PER_LIFE} events`);
        if (step.value.index === killAfter) {
          life.end = 'killed';
          life.killedAfter = killAfter;
          break; // the generator is dropped, not closed: no finally of the agent runs
        }
      }
    } catch (error) {
      if (!(error instanceof ConversationRejected) && !(error instanceof JournalCorrupt)) throw error;
      life.end = 'failed';
      life.error = error.message;
      life.errorKind = error instanceof ConversationRejected ? 'conversation-rejected' : 'journal-corrupt';
    }
    if (life.end !== 'killed') break;
  }
  return {
    scenarioId: scenario.id,
    strategy: strategy.name,
    schedule,
    lives,
    picksTaken: [...interleaving.taken],
    pickWidths: [...interleaving.widths],
    delivered: stores.outbox.delivered(scenario.id),
    writes: stores.shop.writeLog(),
    refusals: stores.shop.refusalLog(),
    shop: stores.shop.snapshot(),
    finalConversation,
  };
}

/** The problem with the run's conversation, if any: a rejected call or an invalid final one. */
export function runConversationProblem(outcome: RunOutcome): string | null {
  const rejected = outcome.lives.find((l) => l.errorKind === 'conversation-rejected');
  if (rejected) return rejected.error;
  if (outcome.finalConversation) return conversationProblem(outcome.finalConversation);
  return null;
}
