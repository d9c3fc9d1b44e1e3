// The conversation in the shape the chat APIs use: assistant messages that carry tool calls with
// ids, and tool messages that answer one id each. The validator rejects what those APIs reject.

export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export type Message =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export type Conversation = Message[];

export type AssistantMessage = Extract<Message, { role: 'assistant' }>;

export function isFinalAnswer(message: Message | undefined): message is AssistantMessage {
  return message !== undefined && message.role === 'assistant' && message.toolCalls.length === 0;
}

/**
 * Returns why a model API would reject this conversation, or null when it is valid: it starts
 * with the customer's message, and every tool call has exactly one result, given before the next
 * assistant message; every result answers a call of the assistant message before it.
 */
export function conversationProblem(conversation: Conversation): string | null {
  if (conversation[0]?.role !== 'user') return 'message 0: the conversation must start with the customer\'s message';
  let open = new Map<string, number>();
  const checkClosed = (before: number): string | null => {
    for (const [id, at] of open) {
      return `message ${at}: tool call ${id} has no result before message ${before}`;
    }
    return null;
  };
  const answered = new Set<string>();
  for (const [i, m] of conversation.entries()) {
    if (m.role === 'assistant') {
      const problem = checkClosed(i);
      if (problem) return problem;
      open = new Map(m.toolCalls.map((c) => [c.id, i]));
      if (open.size !== m.toolCalls.length) return `message ${i}: two tool calls share an id`;
    } else if (m.role === 'tool') {
      if (answered.has(m.toolCallId)) return `message ${i}: tool call ${m.toolCallId} has a second result`;
      if (!open.has(m.toolCallId)) return `message ${i}: result for ${m.toolCallId}, which the assistant message before it did not ask for`;
      open.delete(m.toolCallId);
      answered.add(m.toolCallId);
    } else if (i !== 0) {
      return `message ${i}: only the first message is the customer's in a support task`;
    }
  }
  return checkClosed(conversation.length);
}
