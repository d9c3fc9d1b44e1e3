// The AI SDK's messages (its ModelMessage form, as a DurableAgent's run or generateText's response
// returns them) as killpoint's conversation: the user's message, each assistant reply with its tool
// calls, each tool result as the text the scripted model reads. Only shapes: no AI SDK import.

import type { Conversation } from '../model/conversation.js';

interface Part {
  type: string;
  text?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: { type: string; value?: unknown };
}

interface ModelMessageLike {
  role: string;
  content: string | Part[];
}

function parts(content: string | Part[]): Part[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function resultText(output: Part['output']): string {
  if (output === undefined) return '';
  if (output.type === 'text' || output.type === 'error-text') return String(output.value);
  return JSON.stringify(output.value);
}

export function conversationOfMessages(messages: readonly ModelMessageLike[]): Conversation {
  const conversation: Conversation = [];
  for (const m of messages) {
    if (m.role === 'user') conversation.push({ role: 'user', content: parts(m.content).map((p) => p.text ?? '').join('') });
    else if (m.role === 'assistant') {
      const all = parts(m.content);
      const toolCalls = all.flatMap((p) => (p.type === 'tool-call' ? [{ id: p.toolCallId!, name: p.toolName!, args: (typeof p.input === 'string' ? JSON.parse(p.input) : p.input) as Record<string, unknown> }] : []));
      conversation.push({ role: 'assistant', content: all.map((p) => (p.type === 'text' ? p.text ?? '' : '')).join(''), toolCalls });
    } else if (m.role === 'tool') {
      for (const p of parts(m.content)) if (p.type === 'tool-result') conversation.push({ role: 'tool', toolCallId: p.toolCallId!, content: resultText(p.output) });
    }
  }
  return conversation;
}

/** The final answer: the last assistant message's text. */
export function answerOf(conversation: Conversation): string {
  const last = conversation.at(-1);
  if (last === undefined || last.role !== 'assistant' || last.toolCalls.length > 0) throw new Error('the run ended without a final answer');
  return last.content;
}
