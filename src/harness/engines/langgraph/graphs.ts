// The shapes of a LangGraph agent under test (see config.ts), compiled with the checkpointer.

import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { END, interrupt, MessagesAnnotation, Send, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { createReactAgent, ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import type { Shape } from './config.js';

/** What killpoint uses of a compiled graph. */
export interface AgentGraph {
  invoke(input: unknown, config: Record<string, unknown>): Promise<unknown>;
  getState(config: Record<string, unknown>): Promise<{ values: { messages?: BaseMessage[] }; next: string[]; config: { configurable?: Record<string, unknown> } }>;
}

export function buildGraph(shape: Shape, model: BaseChatModel, tools: StructuredToolInterface[], checkpointer: BaseCheckpointSaver): AgentGraph {
  if (shape === 'react') return createReactAgent({ llm: model, tools, checkpointer, version: 'v2' }) as unknown as AgentGraph;
  if (shape === 'approval') return approvalGraph(model, tools, checkpointer);
  const agent = async (state: typeof MessagesAnnotation.State) => ({ messages: [await model.invoke(state.messages)] });
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', agent)
    .addNode('tools', new ToolNode(tools))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition)
    .addEdge('tools', 'agent')
    .compile({ checkpointer }) as unknown as AgentGraph;
}

/** The node that asks a person before a refund: its wait is named by it (`approve#1`). */
export const APPROVE_NODE = 'approve';

/** What the person is asked: each refund of the reply, by its call id, order, line and amount. */
export interface ApprovalQuestion {
  approve: { callId: string; orderId: unknown; lineId: unknown; amountCents: unknown }[];
}

const lastReply = (state: typeof MessagesAnnotation.State) => state.messages.at(-1) as AIMessage | undefined;
const refundsOf = (reply: AIMessage | undefined) => (reply?.tool_calls ?? []).filter((c) => c.name === 'refund');

/** Each call of the last reply as a task of its own, as createReactAgent v2 sends them. */
const sendEachCall = (state: typeof MessagesAnnotation.State) => (lastReply(state)?.tool_calls ?? []).map((call) => new Send('tools', { ...state, lg_tool_call: call }));

/**
 * createReactAgent v2's graph (one task per call, each saved as it ends) with a person in the loop:
 * a reply that calls `refund` goes first to `approve`, whose interrupt() stops the run until the
 * person answers; the reply's calls run once the answer is in. LangGraph runs `approve` again from
 * its start when resumed, so it does nothing before it asks (no effect made twice without a kill).
 * A refund not approved stops the run: no bundled task has a branch for it (config.ts: BUNDLED_APPROVAL).
 */
function approvalGraph(model: BaseChatModel, tools: StructuredToolInterface[], checkpointer: BaseCheckpointSaver): AgentGraph {
  const agent = async (state: typeof MessagesAnnotation.State) => ({ messages: [await model.invoke(state.messages)] });
  const approve = (state: typeof MessagesAnnotation.State) => {
    const question: ApprovalQuestion = { approve: refundsOf(lastReply(state)).map((c) => ({ callId: c.id ?? '', orderId: c.args.orderId, lineId: c.args.lineId, amountCents: c.args.amountCents })) };
    const answer: unknown = interrupt(question);
    if (answer !== true && answer !== 'approve') throw new Error(`approve: the refunds ${question.approve.map((r) => r.callId).join(', ')} were not approved (${JSON.stringify(answer)}), and the task has no branch for a declined refund`);
    return {};
  };
  const afterAgent = (state: typeof MessagesAnnotation.State) => {
    const reply = lastReply(state);
    if ((reply?.tool_calls?.length ?? 0) === 0) return END;
    return refundsOf(reply).length > 0 ? APPROVE_NODE : sendEachCall(state);
  };
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', agent)
    .addNode(APPROVE_NODE, approve)
    .addNode('tools', new ToolNode(tools))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', afterAgent, [APPROVE_NODE, 'tools', END])
    .addConditionalEdges(APPROVE_NODE, sendEachCall, ['tools'])
    .addEdge('tools', 'agent')
    .compile({ checkpointer }) as unknown as AgentGraph;
}
