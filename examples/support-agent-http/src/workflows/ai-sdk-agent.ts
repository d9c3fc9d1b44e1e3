// The Vercel support workflow's loop, as the ai-sdk*.ts files run it: ask the model
// (a step), run the tools it called (a step each), until it answers in text. It runs in the
// workflow's sandbox: it calls steps and keeps the conversation, and does nothing itself.

import type { ModelMessage } from 'ai';
import { askModel, lookupOrderStep, refundStep, type Keys } from './ai-sdk-steps';

export async function supportLoop(input: { messages: ModelMessage[] }, keys: Keys): Promise<string> {
  const messages = [...input.messages];
  for (let turn = 0; turn < 6; turn++) {
    const { text, calls, said } = await askModel(messages);
    if (calls.length === 0) return text;
    messages.push(...said);
    for (const call of calls) {
      const result = call.toolName === 'refund' ? await refundStep(call.input.order_id, call.input.cents ?? 0, keys) : await lookupOrderStep(call.input.order_id);
      messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'json', value: JSON.parse(result) } }] });
    }
  }
  throw new Error('the model did not finish in 6 turns');
}
