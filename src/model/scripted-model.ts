// The scripted model: deterministic replies, chosen by walking the scenario's step graph along the
// conversation. The same conversation always gets the same reply (so a restart that reaches the
// same point hears the same thing), and a conversation that diverged (a refused repeat, a lookup
// that now shows an earlier refund) follows the branch the scenario defines for it.
// Like a real model API, it rejects a conversation in which a tool call has no result.

import { conversationProblem, type Conversation, type Message, type ToolCall } from './conversation.js';
import type { BranchCondition, ModelStep, Scenario, ToolStep } from './scenario.js';

export interface ModelReply {
  step: ModelStep;
  message: Extract<Message, { role: 'assistant' }>;
  /** The reply as it streams: joined, the chunks are the message's text. */
  chunks: string[];
}

/** What a model API answers to an invalid conversation (HTTP 400 in the real ones). */
export class ConversationRejected extends Error {
  constructor(readonly problem: string) {
    super(`the model API rejected the conversation: ${problem}`);
    this.name = 'ConversationRejected';
  }
}

/** The conversation is not one this scenario's model could have produced. */
export class ScriptError extends Error {
  constructor(scenarioId: string, problem: string) {
    super(`scenario ${scenarioId}: ${problem}`);
    this.name = 'ScriptError';
  }
}

export class ScriptedModel {
  private readonly replies = new Map<string, ModelReply>();

  constructor(private readonly scenario: Scenario) {
    for (const step of scenario.steps.values()) this.replies.set(step.name, buildReply(step));
  }

  reply(conversation: Conversation): ModelReply {
    const problem = conversationProblem(conversation);
    if (problem !== null) throw new ConversationRejected(problem);
    return this.replies.get(this.currentStep(conversation).name)!;
  }

  /** Walks the step graph along the conversation's assistant messages. */
  private currentStep(conversation: Conversation): ModelStep {
    const steps = this.scenario.steps;
    let step = steps.get(this.scenario.start)!;
    for (const [i, message] of conversation.entries()) {
      if (message.role !== 'assistant') continue;
      if (step.kind !== 'calls') throw new ScriptError(this.scenario.id, `message ${i}: the conversation goes on after the final answer`);
      const expected = step.calls.map((c) => c.id).join(',');
      const got = message.toolCalls.map((c) => c.id).join(',');
      if (expected !== got) throw new ScriptError(this.scenario.id, `message ${i}: expected the calls of step ${step.name} (${expected}), got ${got}`);
      const results = resultsFor(conversation, step);
      step = steps.get(step.next.find((b) => b.when === undefined || (matches(b.when, results) && (b.whenAlso ?? []).every((w) => matches(w, results))))!.goto)!;
    }
    return step;
  }
}

function buildReply(step: ModelStep): ModelReply {
  if (step.kind === 'answer') {
    return { step, message: { role: 'assistant', content: step.text, toolCalls: [] }, chunks: splitEvenly(step.text, step.chunks) };
  }
  const toolCalls: ToolCall[] = step.calls.map((c) => ({ id: c.id, name: c.tool, args: c.args }));
  // A tool-call reply streams as the JSON of its calls, as the chat APIs stream function arguments.
  return { step, message: { role: 'assistant', content: '', toolCalls }, chunks: splitEvenly(JSON.stringify(toolCalls), step.chunks) };
}

export function splitEvenly(text: string, parts: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < parts; i++) chunks.push(text.slice(Math.floor((i * text.length) / parts), Math.floor(((i + 1) * text.length) / parts)));
  return chunks;
}

function resultsFor(conversation: Conversation, step: ToolStep): Record<string, unknown>[] {
  return step.calls.map((call) => {
    const message = conversation.find((m) => m.role === 'tool' && m.toolCallId === call.id);
    return message && message.role === 'tool' ? (JSON.parse(message.content) as Record<string, unknown>) : {};
  });
}

function matches(when: BranchCondition, results: Record<string, unknown>[]): boolean {
  const result = results[when.call] ?? {};
  if (when.outcome !== undefined && (result.ok === true ? 'ok' : 'refused') !== when.outcome) return false;
  if (when.nonEmpty !== undefined) {
    const list = findField(result, when.nonEmpty);
    if (!Array.isArray(list) || list.length === 0) return false;
  }
  if (when.field !== undefined && findField(result, when.field) !== when.equals) return false;
  return true;
}

/** The first field of that name, at any depth (so `refunds` matches `{ refunds: [...] }`). */
function findField(value: unknown, name: string): unknown {
  if (value === null || typeof value !== 'object') return undefined;
  if (name in value) return (value as Record<string, unknown>)[name];
  for (const inner of Object.values(value)) {
    const found = findField(inner, name);
    if (found !== undefined) return found;
  }
  return undefined;
}
