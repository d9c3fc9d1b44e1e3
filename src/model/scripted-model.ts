// The scripted model: deterministic replies, chosen by walking the scenario's step graph along the
// conversation. The same conversation always gets the same reply (so a restart that reaches the
// same point hears the same thing), and a conversation that diverged (a refused repeat, a lookup
// that now shows an earlier refund) follows the branch the scenario defines for it.
// Like a real model API, it rejects a conversation in which a tool call has no result.

import { ConversationCheck, type Conversation, type Message, type ToolCall } from './conversation.js';
import type { BranchCondition, ModelStep, Scenario, ToolStep } from './scenario.js';
import { parsedText } from './parsed-texts.js';

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

/** What the check and the walk read of a message, as it was when they read it. */
type ReadMessage =
  | { message: Message; role: 'user' }
  /** An assistant message's call ids. */
  | { message: Message; role: 'assistant'; callIds: string[] }
  /** A tool message's call id and content. */
  | { message: Message; role: 'tool'; toolCallId: string; content: string };

/**
 * The check and the walk of the conversation the model last answered. A life asks again with the
 * same conversation plus new messages: both carry on from where they stopped instead of reading it
 * all again, which gives the same answer (see `reply`).
 */
interface Progress {
  read: ReadMessage[];
  check: ConversationCheck;
  /** Messages walked, and the step reached after them. */
  walked: number;
  step: ModelStep;
}

export class ScriptedModel {
  private readonly replies = new Map<string, ModelReply>();
  private progress: Progress | null = null;

  constructor(private readonly scenario: Scenario) {
    for (const step of scenario.steps.values()) this.replies.set(step.name, buildReply(step));
  }

  /**
   * Why carrying on is exact: the check's first problem never changes as messages are added, and
   * the walk only reads, for an assistant message, the results of its own calls; in a valid
   * conversation each has exactly one result, already there when that message was walked, and
   * messages added later cannot come before it. Carrying on needs every message read before to be
   * unchanged in what was read of it (same object, same role, ids and content); otherwise, or when
   * the calls of a message match its step only once joined with commas, everything is read again.
   */
  reply(conversation: Conversation): ModelReply {
    let progress = this.progress;
    if (progress === null || !readBefore(progress.read, conversation)) {
      progress = { read: [], check: new ConversationCheck(), walked: 0, step: this.stepNamed(this.scenario.start) };
    }
    this.progress = progress;
    for (const message of conversation.slice(progress.read.length)) {
      progress.check.add(message);
      progress.read.push(readOf(message));
    }
    const problem = progress.check.problem();
    if (problem !== null) throw new ConversationRejected(problem);
    const walk = this.walk(conversation, progress.walked, progress.step);
    if (walk.exact) {
      progress.walked = conversation.length;
      progress.step = walk.step;
    } else {
      this.progress = null;
    }
    const reply = this.replies.get(walk.step.name);
    if (reply === undefined) throw new Error(`scripted model: no reply built for step ${walk.step.name} of ${this.scenario.id}`);
    return reply;
  }

  /** A step the scenario checked exists (its start, or a branch's goto): absent only through a bug. */
  private stepNamed(name: string): ModelStep {
    const step = this.scenario.steps.get(name);
    if (step === undefined) throw new Error(`scripted model: ${this.scenario.id} has no step ${name}`);
    return step;
  }

  /** Walks the step graph along the conversation's assistant messages, from message `from` at `step`. */
  private walk(conversation: Conversation, from: number, step: ModelStep): { step: ModelStep; exact: boolean } {
    let exact = true;
    const results = new FirstResults(conversation);
    for (const [k, message] of conversation.slice(from).entries()) {
      const i = from + k;
      if (message.role !== 'assistant') continue;
      if (step.kind !== 'calls') throw new ScriptError(this.scenario.id, `message ${i}: the conversation goes on after the final answer`);
      if (!sameIds(step.calls, message.toolCalls)) {
        const expected = step.calls.map((c) => c.id).join(',');
        const got = message.toolCalls.map((c) => c.id).join(',');
        if (expected !== got) throw new ScriptError(this.scenario.id, `message ${i}: expected the calls of step ${step.name} (${expected}), got ${got}`);
        exact = false; // equal only once joined: the results looked up may not be this message's
      }
      const found = results.of(step);
      const branch = step.next.find((b) => b.when === undefined || (matches(b.when, found) && (b.whenAlso ?? []).every((w) => matches(w, found))));
      if (branch === undefined) throw new Error(`scripted model: step ${step.name} of ${this.scenario.id} has no default branch`);
      step = this.stepNamed(branch.goto);
    }
    return { step, exact };
  }
}

function sameIds(a: readonly { id: string }[], b: readonly { id: string }[]): boolean {
  if (a.length !== b.length) return false;
  const bIds = b.map((c) => c.id);
  return a.every((c, i) => c.id === bIds[i]);
}

function readOf(message: Message): ReadMessage {
  if (message.role === 'tool') return { message, role: message.role, toolCallId: message.toolCallId, content: message.content };
  if (message.role === 'assistant') return { message, role: message.role, callIds: message.toolCalls.map((c) => c.id) };
  return { message, role: message.role };
}

/** The conversation starts with the messages read, each unchanged in what was read of it. */
function readBefore(read: ReadMessage[], conversation: Conversation): boolean {
  if (conversation.length < read.length) return false;
  for (const [i, r] of read.entries()) {
    const m = conversation[i]!;
    if (r.message !== m || r.role !== m.role) return false;
    // The roles are the same: each check below reads r and m as the same kind of message.
    if (r.role === 'tool' && m.role === 'tool' && (r.toolCallId !== m.toolCallId || r.content !== m.content)) return false;
    if (r.role === 'assistant' && m.role === 'assistant') {
      const ids = r.callIds;
      if (ids.length !== m.toolCalls.length) return false;
      for (const [j, call] of m.toolCalls.entries()) if (ids[j] !== call.id) return false;
    }
  }
  return true;
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

/**
 * The results of a step's calls: for each, the first tool message that answers it (parsed), or
 * nothing. The first answer of every call is found in one pass, made when a walk first asks: a walk
 * from the start of a long conversation asks for every step's results.
 */
class FirstResults {
  private first: Map<string, string> | null = null;

  constructor(private readonly conversation: Conversation) {}

  of(step: ToolStep): Record<string, unknown>[] {
    if (this.first === null) {
      this.first = new Map();
      for (const m of this.conversation) if (m.role === 'tool' && !this.first.has(m.toolCallId)) this.first.set(m.toolCallId, m.content);
    }
    const first = this.first;
    return step.calls.map((call) => {
      const content = first.get(call.id);
      return content === undefined ? {} : (parsedText(content) as Record<string, unknown>); // the branch conditions only read it
    });
  }
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
