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
 * assistant message; every result answers a call of the assistant message before it. The customer
 * writes again only after a final answer (a chat's later message).
 */
export function conversationProblem(conversation: Conversation): string | null {
  const check = new ConversationCheck();
  for (const m of conversation) check.add(m);
  return check.problem();
}

/**
 * conversationProblem one message at a time, for a conversation that grows: the first problem
 * found while reading stays the answer whatever follows; only the calls still open at the end
 * depend on where the conversation ends.
 */
export class ConversationCheck {
  private open = new Map<string, number>();
  private readonly answered = new Set<string>();
  private found: string | null = null;
  private length = 0;
  /** The message read last was the assistant's final answer: the customer may write again. */
  private answeredLast = false;

  /** Reads the next message. */
  add(m: Message): void {
    const i = this.length++;
    if (this.found !== null) return;
    const afterAnswer = this.answeredLast;
    this.answeredLast = m.role === 'assistant' && m.toolCalls.length === 0;
    if (i === 0 && m.role !== 'user') {
      this.found = 'message 0: the conversation must start with the customer\'s message';
    } else if (m.role === 'assistant') {
      const problem = this.openProblem(i);
      if (problem !== null) {
        this.found = problem;
        return;
      }
      this.open = new Map();
      for (const c of m.toolCalls) this.open.set(c.id, i);
      if (this.open.size !== m.toolCalls.length) this.found = `message ${i}: two tool calls share an id`;
    } else if (m.role === 'tool') {
      if (this.answered.has(m.toolCallId)) this.found = `message ${i}: tool call ${m.toolCallId} has a second result`;
      else if (!this.open.has(m.toolCallId)) this.found = `message ${i}: result for ${m.toolCallId}, which the assistant message before it did not ask for`;
      else {
        this.open.delete(m.toolCallId);
        this.answered.add(m.toolCallId);
      }
    } else if (i !== 0 && !afterAnswer) {
      this.found = `message ${i}: the customer writes first, or again after a final answer`;
    }
  }

  /** The problem with the conversation read so far, ending here; null when it is valid. */
  problem(): string | null {
    if (this.found !== null) return this.found;
    if (this.length === 0) return 'message 0: the conversation must start with the customer\'s message';
    return this.openProblem(this.length);
  }

  private openProblem(before: number): string | null {
    for (const [id, at] of this.open) {
      return `message ${at}: tool call ${id} has no result before message ${before}`;
    }
    return null;
  }
}
