// A LangGraph support agent on ChatOpenAI, written as its docs show: an agent node, a ToolNode with
// two tools that call the shop's API, and the checkpointer it is given. It keeps no ledger and
// exports no readEffects: what it did is what the shop was asked to do.
//
// `keys` is how its refund is keyed: not at all, by the thread and the model's tool call (the same
// in every life of the run: a recovery repeats the call), or by a fresh random id (a new key each
// time: no protection at all).

import { randomUUID } from 'node:crypto';
import { tool } from '@langchain/core/tools';
import { MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import { lookupOrder, refund } from './shop.js';

export type Keys = 'none' | 'stable' | 'random';

export interface GraphContext {
  checkpointer: unknown;
  threadId: string;
}

export function buildGraph(ctx: GraphContext, keys: Keys) {
  const lookup = tool(async ({ order_id }) => JSON.stringify(await lookupOrder(order_id)), {
    name: 'lookup_order',
    description: 'Look an order up: its total and what was refunded.',
    schema: z.object({ order_id: z.string() }),
  });
  const refundOrder = tool(
    async ({ order_id, cents }, config) => {
      const key = keys === 'stable' ? `${ctx.threadId}:${config.toolCall?.id}` : keys === 'random' ? randomUUID() : undefined;
      return JSON.stringify(await refund(order_id, cents, key));
    },
    { name: 'refund', description: 'Refund an order, in cents.', schema: z.object({ order_id: z.string(), cents: z.number().int() }) },
  );
  const tools = [lookup, refundOrder];
  const model = new ChatOpenAI({ model: 'gpt-4o-mini', temperature: 0 }).bindTools(tools);
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state: typeof MessagesAnnotation.State) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode('tools', new ToolNode(tools))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition)
    .addEdge('tools', 'agent')
    .compile({ checkpointer: ctx.checkpointer as never });
}
