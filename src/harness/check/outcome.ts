// What a run under a kill schedule leaves behind, for every engine and tier: the lives with their
// events and how each ended, the answers delivered, the shop's logs and rows. The checker reads
// only this; it never imports an engine.

import { conversationProblem, type Conversation } from '../../model/conversation.js';
import type { RunEvent } from './events.js';

export interface Schedule {
  /** One kill point per life: life i dies right after its event kills[i] (-1: before its first). */
  kills: number[];
  /** Picks among parallel tool calls (see Interleaving); empty for the default order. */
  interleaving: number[];
}

/**
 * How a life that stopped on an error of its own (not a kill) is classified: the model API
 * rejected its conversation, its journal could not be read back, or (an agent behind the kill
 * protocol) it stopped on an error it reported, or crashed.
 */
export type LifeErrorKind = 'conversation-rejected' | 'journal-corrupt' | 'stopped' | 'crashed';

export interface LifeRecord {
  events: RunEvent[];
  /** killed: the schedule killed it; finished: it ran to its end; failed: it stopped on an error. */
  end: 'killed' | 'finished' | 'failed';
  killedAfter: number | null;
  error: string | null;
  errorKind: LifeErrorKind | null;
  /**
   * Set on a recovery stopped at its time limit (it waited for something its killed predecessor
   * left): the search stops after the earliest run that hung, unless asked for every kill point.
   */
  hung?: true;
}

export interface RunOutcome {
  scenarioId: string;
  /** The system under test that ran (a strategy of the scripted engine, or another engine's system). */
  strategy: string;
  schedule: Schedule;
  lives: LifeRecord[];
  /** The interleaving picks actually taken (a replay with these gives the same run). */
  picksTaken: number[];
  /** How many calls could advance at each pick taken (same length as picksTaken). */
  pickWidths: number[];
  delivered: string[];
  /** Every committed write, in order. */
  writes: CommittedWrite[];
  refusals: RefusedWrite[];
  /**
   * The durable rows the system under test keeps, by table, each row as JSON text (the scripted
   * shop: its state tables; another engine: whatever state it promises to leave as the baseline does).
   */
  shop: Record<string, string[]>;
  /** The conversation of the life that finished, or null when none did. */
  finalConversation: Conversation | null;
}

/** A write the system committed (the scripted shop's write log is one; another engine's kinds of write are as good). */
export interface CommittedWrite {
  kind: string;
  target: string;
  /** Canonical JSON of the arguments. */
  args: string;
  key: string | null;
}

/** A write the system's rules refused, and why. */
export interface RefusedWrite extends CommittedWrite {
  reason: string;
}

export function noKills(interleaving: number[] = []): Schedule {
  return { kills: [], interleaving };
}

/** The problem with the run's conversation, if any: a rejected call or an invalid final one. */
export function runConversationProblem(outcome: RunOutcome): string | null {
  const rejected = outcome.lives.find((l) => l.errorKind === 'conversation-rejected');
  if (rejected) return rejected.error;
  if (outcome.finalConversation) return conversationProblem(outcome.finalConversation);
  return null;
}
