// The shop's tools as LangChain tools over killpoint's SQLite shop. A call passes the gate before
// each step: tool-start, the shop's transaction (shop-commit when it committed a write), the
// result. With keys, a write carries the idempotency key thread id + tool call id (both are in the
// tool's config), so a repeat after a kill gets the first result back instead of writing again.

import type { RunnableConfig } from '@langchain/core/runnables';
import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { z } from 'zod';
import type { Shop } from '../../../model/shop.js';
import { isWriteTool, TOOL_NAMES, type ToolName } from '../../../model/tools.js';
import type { Gate } from './gate.js';

const text = z.string().min(1);
const cents = z.number().int().min(1);

const SCHEMAS: Record<ToolName, z.ZodObject> = {
  find_customer: z.object({ email: text }),
  list_orders: z.object({ customerId: text }),
  get_order: z.object({ orderId: text }),
  list_refunds: z.object({ orderId: text }),
  refund: z.object({ orderId: text, lineId: text, amountCents: cents }),
  cancel_order: z.object({ orderId: text }),
  change_address: z.object({ customerId: text, address: text }),
  send_email: z.object({ customerId: text, subject: text, body: text }),
  hand_off: z.object({ customerId: text, reason: text }),
};

export type ToolEvent =
  | { kind: 'tool-start' | 'shop-commit'; callId: string; tool: string; write?: boolean }
  | { kind: 'tool-result'; callId: string; tool: string; write: boolean; refused?: string };

export interface ShopToolsOptions {
  shop: Shop;
  gate: Gate;
  onEvent: (event: ToolEvent) => void;
  /** Give every write the key `${thread_id}:${tool call id}`. */
  keys: boolean;
}

/** The key a write carries: the run (thread) and the step (tool call), never a fresh random id. */
export function langGraphIdempotencyKey(threadId: string, toolCallId: string): string {
  return `${threadId}:${toolCallId}`;
}

export function shopTools(options: ShopToolsOptions): StructuredToolInterface[] {
  return TOOL_NAMES.map((name) =>
    tool(async (args: Record<string, unknown>, config: RunnableConfig & { toolCall?: { id?: string } }) => runTool(options, name, args, config), {
      name,
      description: `The shop's ${name} tool.`,
      schema: SCHEMAS[name],
    }),
  );
}

async function runTool(o: ShopToolsOptions, name: ToolName, args: Record<string, unknown>, config: RunnableConfig & { toolCall?: { id?: string } }): Promise<string> {
  const callId = config.toolCall?.id;
  const threadId = config.configurable?.thread_id as string | undefined;
  if (!callId || !threadId) throw new Error(`${name}: LangGraph gave the tool no call id or thread id`);
  await o.gate.pass(callId);
  o.onEvent({ kind: 'tool-start', callId, tool: name });
  await o.gate.pass(callId);
  const key = o.keys && isWriteTool(name) ? langGraphIdempotencyKey(threadId, callId) : null;
  const call = o.shop.call(name, args, key);
  if (call.committed) o.onEvent({ kind: 'shop-commit', callId, tool: name, write: true });
  await o.gate.pass(callId);
  o.onEvent({ kind: 'tool-result', callId, tool: name, write: call.committed, ...(call.result.ok ? {} : { refused: call.result.refused }) });
  o.gate.finish(callId);
  return JSON.stringify(call.result);
}
