// A DBOS support workflow as people write one on the OpenAI SDK: a durable agent loop in which each
// model call (streamed) is a step and each tool call is a step that calls the shop's API with fetch.
// No ledger, no readEffects: what it did is what the shop was asked to do.
//
// `keys` is how its refund is keyed: not at all, by DBOS.workflowID and DBOS.stepID (as DBOS's docs
// advise: the same in every life of the run, so a step run again repeats its key), or by a fresh
// random id (a new key each time: no protection at all).

import { randomUUID } from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import OpenAI from 'openai';
import { lookupOrder, refund } from './shop.js';

export type Keys = 'none' | 'stable' | 'random';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;
interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

// Made as the module loads, as people make it: it reads OPENAI_BASE_URL and OPENAI_API_KEY.
const openai = new OpenAI();

const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'lookup_order', description: 'Look an order up: its total and what was refunded.', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } } },
  { type: 'function', function: { name: 'refund', description: 'Refund an order, in cents.', parameters: { type: 'object', properties: { order_id: { type: 'string' }, cents: { type: 'integer' } }, required: ['order_id', 'cents'] } } },
];

/** One model call, streamed: its text and its tool calls, gathered from the chunks. */
async function askModel(messages: Message[]): Promise<{ text: string; calls: ToolCall[] }> {
  const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages, tools: TOOLS });
  let text = '';
  const calls: ToolCall[] = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    text += delta?.content ?? '';
    for (const c of delta?.tool_calls ?? []) {
      calls[c.index] ??= { id: c.id ?? '', name: c.function?.name ?? '', arguments: '' };
      calls[c.index]!.arguments += c.function?.arguments ?? '';
    }
  }
  return { text, calls };
}

export function supportWorkflow(keys: Keys) {
  const callModel = DBOS.registerStep(askModel, { name: 'model' });
  const lookup = DBOS.registerStep(async (orderId: string) => JSON.stringify(await lookupOrder(orderId)), { name: 'lookup_order' });
  const pay = DBOS.registerStep(
    async (orderId: string, cents: number) => {
      const key = keys === 'stable' ? `${DBOS.workflowID}:${DBOS.stepID}` : keys === 'random' ? randomUUID() : undefined;
      return JSON.stringify(await refund(orderId, cents, key));
    },
    { name: 'refund' },
  );
  return DBOS.registerWorkflow(
    async (input: { messages: Message[] }) => {
      const messages = [...input.messages];
      for (let turn = 0; turn < 6; turn++) {
        const { text, calls } = await callModel(messages);
        if (calls.length === 0) return text;
        messages.push({ role: 'assistant', content: text || null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
        for (const call of calls) {
          const args = JSON.parse(call.arguments) as { order_id: string; cents?: number };
          const result = call.name === 'refund' ? await pay(args.order_id, args.cents ?? 0) : await lookup(args.order_id);
          messages.push({ role: 'tool', tool_call_id: call.id, content: result });
        }
      }
      throw new Error('the model did not finish in 6 turns');
    },
    { name: 'support' },
  );
}
