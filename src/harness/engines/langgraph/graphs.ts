// The two shapes of a LangGraph agent under test (see config.ts), compiled with the checkpointer.

import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { createReactAgent, ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import type { Shape } from './config.js';

/** What killpoint uses of a compiled graph. */
export interface AgentGraph {
  invoke(input: unknown, config: Record<string, unknown>): Promise<unknown>;
  getState(config: Record<string, unknown>): Promise<{ values: { messages?: BaseMessage[] }; next: string[]; config: { configurable?: Record<string, unknown> } }>;
}

export function buildGraph(shape: Shape, model: BaseChatModel, tools: StructuredToolInterface[], checkpointer: BaseCheckpointSaver): AgentGraph {
  if (shape === 'react') return createReactAgent({ llm: model, tools, checkpointer, version: 'v2' }) as unknown as AgentGraph;
  const agent = async (state: typeof MessagesAnnotation.State) => ({ messages: [await model.invoke(state.messages)] });
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', agent)
    .addNode('tools', new ToolNode(tools))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition)
    .addEdge('tools', 'agent')
    .compile({ checkpointer }) as unknown as AgentGraph;
}
