// LangChain messages and killpoint's Conversation (the shape the scripted model walks and the
// conversation check reads), both ways.

import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { Conversation, Message } from '../../../model/conversation.js';
import type { ModelReply } from '../../../model/scripted-model.js';

export function toConversation(messages: readonly BaseMessage[]): Conversation {
  return messages.map((m): Message => {
    const type = m.getType();
    if (type === 'human') return { role: 'user', content: textOf(m) };
    if (type === 'ai') {
      const calls = (m as AIMessage).tool_calls ?? [];
      return { role: 'assistant', content: textOf(m), toolCalls: calls.map((c) => ({ id: c.id ?? '', name: c.name, args: c.args })) };
    }
    if (type === 'tool') return { role: 'tool', toolCallId: (m as unknown as { tool_call_id: string }).tool_call_id, content: textOf(m) };
    throw new Error(`toConversation: a ${type} message has no place in an agent's conversation`);
  });
}

/** The scripted reply as an AIMessage, carrying the scenario's stable tool call ids. */
export function toAIMessage(reply: ModelReply): AIMessage {
  const m = reply.message;
  return new AIMessage({
    content: m.content,
    tool_calls: m.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args, type: 'tool_call' as const })),
  });
}

function textOf(m: BaseMessage): string {
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}
