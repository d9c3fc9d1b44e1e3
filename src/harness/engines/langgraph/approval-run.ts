// The bundled approval shape's run across its waits (config.ts, graphs.ts): where the thread
// stands when the life starts (stopped at the person's question, or not), then the run handed each
// wait its turn as a user's graph is (module/waits.ts: the kill points `interrupt[approve#1]` and
// `resume[approve#1]`), the turns being the bundled person's: approve every refund. The record of
// what was handed to which wait is the outside world's, in the run's folder (user-module/turns.ts),
// so a recovery killed before the run recorded a turn is handed that turn again.

import { Command } from '@langchain/langgraph';
import type { EmitEvent } from '../../process/child-main.js';
import { Turns } from '../../user-module/turns.js';
import { BUNDLED_APPROVAL } from './config.js';
import type { EventedSqliteSaver } from './evented-saver.js';
import type { AgentGraph } from './graphs.js';
import { pendingWait, runAcrossWaits, type ThreadStatus, type WaitingGraph } from './module/waits.js';

/**
 * The bundled person's answers, one a wait: more than any bundled task asks (one question per reply
 * that calls `refund`), so the list never runs out, and no check asks that every one be used.
 */
const BUNDLED_TURNS = { values: Array.from({ length: 100 }, () => BUNDLED_APPROVAL), arg: 'the bundled approvals (every refund approved)' };

export interface ApprovalRun {
  graph: AgentGraph;
  saver: EventedSqliteSaver;
  threadId: string;
  /** The run's first input (the customer's message), for a thread with nothing saved. */
  input: unknown;
  runConfig: Record<string, unknown>;
  stateDir: string;
  emit: EmitEvent;
  /** The shop's committed writes so far: the effects a wait has seen done. */
  effectsDone: () => number;
}

/** Runs or resumes the thread to its end, handing each wait the bundled person's answer. */
export async function runApprovalThread(run: ApprovalRun): Promise<void> {
  const graph = run.graph as unknown as WaitingGraph;
  const thread = { configurable: { thread_id: run.threadId } };
  const status = await approvalThreadStatus(graph, run.saver, thread);
  const turns = new Turns(run.stateDir, BUNDLED_TURNS, false);
  const across = {
    graph,
    config: run.runConfig,
    thread,
    turns,
    emit: run.emit,
    effectsDone: () => Promise.resolve(run.effectsDone()),
    command: (resume: unknown) => new Command({ resume }),
    answersTaken: () => run.saver.answersTaken,
  };
  await runAcrossWaits(across, status === 'new' ? run.input : null, status);
}

/** new: nothing saved; waiting: stopped at the person's question; unfinished: tasks or saved writes left; finished. */
async function approvalThreadStatus(graph: WaitingGraph, saver: EventedSqliteSaver, thread: { configurable: { thread_id: string } }): Promise<ThreadStatus> {
  const state = await graph.getState(thread);
  const messages = state.values?.messages;
  if (state.config?.configurable?.checkpoint_id === undefined || !Array.isArray(messages) || messages.length === 0) return 'new';
  if ((await pendingWait(graph, thread)) !== null) return 'waiting';
  if ((state.next ?? []).length > 0) return 'unfinished';
  const pending = (await saver.getTuple(thread))?.pendingWrites?.length ?? 0;
  return pending === 0 ? 'finished' : 'unfinished';
}
