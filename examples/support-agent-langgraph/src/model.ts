// The support agent's model. In production this is a real chat model; here it is a small
// deterministic one, so the example runs offline: it reads the conversation and answers as a model
// would, first with two tool calls in one reply (the refund and the email), then with the answer.

import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';

export class SupportModel extends BaseChatModel {
  _llmType(): string {
    return 'support-example';
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[], _options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const toolResults = messages.filter((m) => m.getType() === 'tool').length;
    const message = toolResults === 0
      ? new AIMessage({
          content: '',
          tool_calls: [
            { id: 'call_1_refund', name: 'refund', args: { orderId: 'O-7', lineId: 'L1', amountCents: 2500 }, type: 'tool_call' },
            { id: 'call_2_email', name: 'send_email', args: { to: 'dana@example.com', subject: 'Your refund for O-7' }, type: 'tool_call' },
          ],
        })
      : new AIMessage({ content: 'I refunded 25.00 for the torn pad on O-7 and emailed you.' });
    for (const piece of String(message.content).match(/.{1,24}/g) ?? []) await runManager?.handleLLMNewToken(piece);
    return { generations: [{ text: String(message.content), message }] };
  }
}
