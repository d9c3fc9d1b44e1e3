// A user's graph across its waits: a node that calls interrupt() stops the run, and `invoke`
// returns with the wait saved. The life then hands the wait its turn (user-module/turns.ts) with
// Command({ resume }) and goes on, until the run ends. Two kill points belong to each wait:
//   interrupt[ask#1]   invoke returned with the wait: it is saved, the run stops there
//   resume[ask#1]      the turn is handed over, before LangGraph records it (invoke not yet called)
// A life that starts with the run waiting (its predecessor was killed while it waited) says no
// interrupt of its own: it hands the turn to the wait it finds.
// A turn is acknowledged once the invoke that carried it returns (user-module/turns.ts). With
// --redeliver, a recovery first delivers again the turn its predecessor handed and never saw
// acknowledged (redeliver[ask#1]): to the wait it finds, or, waiting on none, as a Command, which
// LangGraph hands to an interrupt() of the step it runs next (found by test: a later question is
// answered without waiting) or drops; `redelivered[ask#1]` says which, once the run stops again.
// A run that ended takes the next later user message (user-module/turns.ts), as a chat app sends
// one: invoke({ messages: [{ role: 'user', content }] }) on the same thread, which appends it to the
// state's messages; the run goes on across its waits to its end again. Its kill point:
//   message[#1]        the message is handed over, before LangGraph records it (invoke not yet called)
// The thread's mark is its last checkpoint's id: LangGraph saves the input as a checkpoint (source
// "input") before it runs a step, so a recovery that finds the run ended and the mark unchanged
// knows the message was never recorded, and is handed it again.

import type { EmitEvent } from '../../../process/child-main.js';
import type { Redelivery, Turns } from '../../../user-module/turns.js';
import { INTERRUPT_RECORDED, LATER_MESSAGE } from '../event-kinds.js';
import { REDELIVERY_SEEN, RESUME_ACCEPTED, TURN_REDELIVERED } from '../../../check/event-kinds.js';
import { sayHalting } from '../../../in-process/fence.js';

/** The graph as the waits read it: its state's tasks carry the interrupts they wait on. */
export interface WaitingGraph {
  invoke(input: unknown, config: Record<string, unknown>): Promise<unknown>;
  getState(config: Record<string, unknown>): Promise<{ values?: Record<string, unknown>; next?: string[]; config?: { configurable?: Record<string, unknown> }; tasks?: { name?: string; interrupts?: { id?: string; value?: unknown }[] }[] }>;
}

/** A wait the thread is stopped at: LangGraph's id of its interrupt, the node that asks, and what it asks. */
export interface PendingWait {
  id: string;
  node: string;
  asks: unknown;
  /** More than one interrupt waits (parallel nodes): the turn goes to this one by its id. */
  byId: boolean;
}

/** The first interrupt the thread waits on, or null when it waits on none. */
export async function pendingWait(graph: WaitingGraph, config: Record<string, unknown>): Promise<PendingWait | null> {
  const state = await graph.getState(config);
  const waits = (state.tasks ?? []).flatMap((t) => (t.interrupts ?? []).map((i) => ({ node: t.name ?? 'graph', interrupt: i })));
  const first = waits[0];
  if (first === undefined) return null;
  const asks = first.interrupt.value;
  // Without a namespace LangGraph gives the interrupt no id: what it asks and where names it.
  const id = first.interrupt.id ?? `${first.node}:${JSON.stringify(asks)}`;
  return { id, node: first.node, asks, byId: waits.length > 1 && first.interrupt.id !== undefined };
}

export interface AcrossWaits {
  graph: WaitingGraph;
  /** The thread's config with the observer (every invoke's). */
  config: Record<string, unknown>;
  /** The thread's config alone (to read its state). */
  thread: Record<string, unknown>;
  turns: Turns;
  emit: EmitEvent;
  /** How many effects the run has done so far (the module's readEffects). */
  effectsDone: () => Promise<number>;
  /** LangGraph's Command, from the copy the graph uses. */
  command: (resume: unknown) => unknown;
  /** How many answers the run's interrupts took so far in this life (the checkpointer's count). */
  answersTaken: () => number;
}

/** Writes the event; in process, a kill halts the life here (fence.ts: sayHalting). */
function say(run: AcrossWaits, event: Parameters<EmitEvent>[0]): Promise<void> {
  return sayHalting(() => run.emit(event));
}

/** Where the thread stands when the life starts: nothing saved, stopped at a wait, steps left, or ended. */
export type ThreadStatus = 'new' | 'waiting' | 'unfinished' | 'finished';

/** Runs the thread to its end from `input` (null: go on from where it stands), handing each wait its turn. */
export async function runAcrossWaits(run: AcrossWaits, input: unknown, status: ThreadStatus): Promise<void> {
  const again = await redeliverOnStart(run, input, status);
  let next = again?.next ?? input;
  // Stopped where it stands (at a wait, or ended): nothing to invoke before a turn or a message.
  let waiting = again?.waiting ?? (status === 'waiting' || status === 'finished');
  let watched = again?.watched;
  for (let turn = 0; turn < 10_000; turn++) {
    if (!waiting) {
      await run.graph.invoke(next, run.config);
      run.turns.acknowledge();
    }
    if (watched !== undefined) await sayWhatItDid(run, watched);
    watched = undefined;
    const wait = await pendingWait(run.graph, run.thread);
    if (wait === null) {
      const message = await laterMessage(run);
      if (message === null) return;
      next = message;
      waiting = false;
      continue;
    }
    if (!waiting) await say(run, { kind: INTERRUPT_RECORDED.kind, wait: run.turns.nameOf(wait.id, wait.node), effectsDone: await run.effectsDone() });
    const { name, value } = run.turns.turnFor(wait.id, wait.node, wait.asks);
    await say(run, { kind: RESUME_ACCEPTED.kind, wait: name });
    next = run.command(wait.byId ? { [wait.id]: value } : value);
    waiting = false;
  }
  throw new Error('the run waited 10000 times: killpoint stops it there');
}

/** The run ended: the input of the later user message it takes now (handed once the event is said), or null when it is over. */
async function laterMessage(run: AcrossWaits): Promise<unknown> {
  const state = await run.graph.getState(run.thread);
  const mark = String(state.config?.configurable?.checkpoint_id ?? '');
  const message = run.turns.laterMessage(mark, Array.isArray(state.values?.messages));
  if (message === undefined) return null;
  await say(run, { kind: LATER_MESSAGE.kind, wait: message.name });
  return { messages: [{ role: 'user', content: message.text }] };
}

/** A turn delivered again to a run that waited at no wait: what it did is seen once the run stops again. */
interface Watched {
  turn: Redelivery;
  answersBefore: number;
  /** The nodes the run was to run next: the one whose interrupt() took the turn, if one did. */
  next: string[];
}

/**
 * --redeliver: the turn the life before handed and never saw acknowledged, delivered again where
 * the recovery starts (null: none). At its own wait it is that wait's turn, handed as ever; at a
 * later wait it answers that one; waiting on none, it goes as a Command, watched.
 */
async function redeliverOnStart(run: AcrossWaits, input: unknown, status: ThreadStatus): Promise<{ next: unknown; waiting: boolean; watched?: Watched } | null> {
  const turn = run.turns.takeRedelivery();
  if (turn === undefined) return null;
  const wait = status === 'waiting' ? await pendingWait(run.graph, run.thread) : null;
  if (wait !== null && wait.id === turn.id) {
    await say(run, { kind: TURN_REDELIVERED.kind, wait: turn.name, redelivery: 'own-wait', answered: turn.name });
    return { next: input, waiting: true };
  }
  if (wait !== null) {
    const answered = run.turns.redeliveredTo(wait.id, wait.node, turn);
    await say(run, { kind: TURN_REDELIVERED.kind, wait: turn.name, redelivery: 'later-question', answered });
    return { next: run.command(wait.byId ? { [wait.id]: turn.value } : turn.value), waiting: false };
  }
  const next = (await run.graph.getState(run.thread)).next ?? [];
  await say(run, { kind: TURN_REDELIVERED.kind, wait: turn.name });
  return { next: run.command(turn.value), waiting: false, watched: { turn, answersBefore: run.answersTaken(), next } };
}

/**
 * What the Command did, once the run stopped again: LangGraph hands a resume no wait takes to the
 * first interrupt() of the step it runs next (a later question, answered without waiting), and
 * drops it when that step asks nothing.
 */
async function sayWhatItDid(run: AcrossWaits, watched: Watched): Promise<void> {
  const { turn } = watched;
  if (run.answersTaken() === watched.answersBefore) {
    await say(run, { kind: REDELIVERY_SEEN.kind, wait: turn.name, redelivery: 'ignored' });
    return;
  }
  const place = watched.next.join('+') || 'graph';
  const answered = run.turns.redeliveredTo(`${place}:answered-by-${turn.name}`, place, turn);
  await say(run, { kind: REDELIVERY_SEEN.kind, wait: turn.name, redelivery: 'later-question', answered });
}
