// The support agent: an agent node that calls the model, a ToolNode that runs the calls of one
// reply in parallel, and two tools that change the world (a refund, an email), recorded in the
// agent's own ledger. Three variants show what killpoint finds:
//   keys: false        a repeated call after a crash records its effect again
//   keys: true         each effect carries the key thread id + tool call id: a repeat does nothing
//   noteInNode: true   the agent node itself writes to the ledger when the model answers, outside
//                      any tool: LangGraph runs a node again when it was killed before its update
//                      was saved, so that write is repeated whatever the tools do

import { tool } from '@langchain/core/tools';
import { MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { Ledger } from './ledger.js';
import { SupportModel } from './model.js';

/** What killpoint gives the module: its checkpointer and a folder for the agent's data. */
export interface AgentContext {
  checkpointer: BaseCheckpointSaver;
  dataDir: string;
}

interface Variant {
  keys: boolean;
  noteInNode: boolean;
}

type CallConfig = { toolCall?: { id?: string }; configurable?: { thread_id?: string } };

function keyOf(variant: Variant, config: CallConfig): string | null {
  return variant.keys ? `${config.configurable?.thread_id}:${config.toolCall?.id}` : null;
}

export function buildSupportAgent(ctx: AgentContext, variant: Variant) {
  const ledger = new Ledger(ctx.dataDir);
  const refund = tool(
    async ({ orderId, lineId, amountCents }, config: CallConfig) => {
      ledger.record({ kind: 'refund', target: `${orderId}/${lineId}`, args: { amountCents } }, keyOf(variant, config));
      return `refunded ${amountCents} cents on ${orderId}`;
    },
    { name: 'refund', description: 'Refund a line of an order.', schema: z.object({ orderId: z.string(), lineId: z.string(), amountCents: z.number().int() }) },
  );
  const sendEmail = tool(
    async ({ to, subject }, config: CallConfig) => {
      ledger.record({ kind: 'email', target: to, args: { subject } }, keyOf(variant, config));
      return `emailed ${to}`;
    },
    { name: 'send_email', description: 'Email the customer.', schema: z.object({ to: z.string(), subject: z.string() }) },
  );
  const model = new SupportModel({});
  const agent = async (state: typeof MessagesAnnotation.State) => {
    const reply = await model.invoke(state.messages);
    if (variant.noteInNode && (reply.tool_calls?.length ?? 0) === 0) ledger.record({ kind: 'note', target: 'crm', args: { text: 'case closed' } }, null);
    return { messages: [reply] };
  };
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', agent)
    .addNode('tools', new ToolNode([refund, sendEmail]))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition)
    .addEdge('tools', 'agent')
    .compile({ checkpointer: ctx.checkpointer });
}

/** The effects the agent has recorded, for killpoint to compare with a run never killed. */
export function readSupportEffects(ctx: AgentContext) {
  const ledger = new Ledger(ctx.dataDir);
  try {
    return ledger.all();
  } finally {
    ledger.close();
  }
}
