// Where a thread stands when a life starts, from the checkpointer alone.
//   new:        no checkpoint for the thread: start with the customer's message.
//   unfinished: carry on with invoke(null) (LangGraph applies the saved pending writes and runs
//               only the tasks that have none).
//   finished:   nothing is left to run.
// `getState().next` is empty right after a kill that follows a task's saved pending writes, yet
// the run is not finished: the step's checkpoint was never written. So "next is empty" alone must
// not mean finished (the next-only rule, kept as a broken variant); the sound rule also asks that
// the latest checkpoint have no pending writes, which holds for any graph.

import type { ResumeRule } from './config.js';
import type { AgentGraph } from './graphs.js';

export type ThreadStatus = 'new' | 'unfinished' | 'finished';

export interface PendingWritesReader {
  getTuple(config: { configurable: { thread_id: string } }): Promise<{ pendingWrites?: unknown[] } | undefined>;
}

export async function threadStatus(graph: AgentGraph, saver: PendingWritesReader, threadId: string, rule: ResumeRule): Promise<ThreadStatus> {
  const state = await graph.getState({ configurable: { thread_id: threadId } });
  if (state.config?.configurable?.checkpoint_id === undefined || (state.values?.messages ?? []).length === 0) return 'new';
  if (state.next.length > 0) return 'unfinished';
  if (rule === 'next-only') return 'finished';
  const pending = (await saver.getTuple({ configurable: { thread_id: threadId } }))?.pendingWrites?.length ?? 0;
  return pending === 0 ? 'finished' : 'unfinished';
}

/** The final answer's text when the saved state ends in one (an AI message without tool calls). */
export async function finalAnswer(graph: AgentGraph, threadId: string): Promise<string | null> {
  const state = await graph.getState({ configurable: { thread_id: threadId } });
  const last = (state.values?.messages ?? []).at(-1) as { getType?: () => string; content?: unknown; tool_calls?: unknown[] } | undefined;
  if (last?.getType?.() !== 'ai' || (last.tool_calls?.length ?? 0) > 0) return null;
  return typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
}
