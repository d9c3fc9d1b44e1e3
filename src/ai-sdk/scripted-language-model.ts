// The scenario's scripted model as a Vercel AI SDK language model (the LanguageModelV3 interface of
// @ai-sdk/provider, the one MockLanguageModelV3 in ai/test implements): an agent loop written with
// generateText or streamText and tools is driven deterministically, reply for reply, by the same
// step graph killpoint's own runner walks. Tool calls carry the scenario's stable ids, so a key
// built from the run and the tool call id is the same in every life. Like a model API, it rejects
// a conversation in which a tool call has no result.
//
// Only types come from @ai-sdk/provider: the model runs without the AI SDK installed.

import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type { Conversation } from '../model/conversation.js';
import type { Scenario } from '../model/scenario.js';
import { ScriptedModel, type ModelReply } from '../model/scripted-model.js';

/** An instrumented moment of the model, for an agent that records events (killpoint/agent). */
export type ScriptedModelEvent =
  | { kind: 'model-request'; modelCall: number }
  | { kind: 'model-chunk'; modelCall: number; chunk: number; chunks: number; final: boolean }
  | { kind: 'model-reply'; modelCall: number; final: boolean };

export interface ScriptedLanguageModelOptions {
  scenario: Scenario;
  onEvent?: (event: ScriptedModelEvent) => void;
}

const NO_USAGE: LanguageModelV3Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/** The AI SDK's prompt as the conversation the scripted model walks (system messages carry no step). */
export function conversationOf(prompt: LanguageModelV3Prompt): Conversation {
  const conversation: Conversation = [];
  for (const m of prompt) {
    if (m.role === 'system') continue;
    if (m.role === 'user') {
      conversation.push({ role: 'user', content: m.content.map((p) => (p.type === 'text' ? p.text : '')).join('') });
    } else if (m.role === 'assistant') {
      const text = m.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
      const toolCalls = m.content.flatMap((p) => (p.type === 'tool-call' ? [{ id: p.toolCallId, name: p.toolName, args: argsOf(p.input) }] : []));
      conversation.push({ role: 'assistant', content: text, toolCalls });
    } else {
      for (const p of m.content) {
        if (p.type === 'tool-result') conversation.push({ role: 'tool', toolCallId: p.toolCallId, content: outputText(p.output) });
      }
    }
  }
  return conversation;
}

function argsOf(input: unknown): Record<string, unknown> {
  const value = typeof input === 'string' ? JSON.parse(input) : input;
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function outputText(output: { type: string; value?: unknown; reason?: string }): string {
  if (output.type === 'text' || output.type === 'error-text') return String(output.value);
  if (output.type === 'json' || output.type === 'error-json') return JSON.stringify(output.value);
  return JSON.stringify({ ok: false, refused: output.reason ?? output.type });
}

export class ScriptedLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const;
  readonly provider = 'killpoint';
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  private readonly script: ScriptedModel;
  private readonly onEvent: (event: ScriptedModelEvent) => void;
  private calls = 0;

  constructor(options: ScriptedLanguageModelOptions) {
    this.script = new ScriptedModel(options.scenario);
    this.modelId = `scripted:${options.scenario.id}`;
    this.onEvent = options.onEvent ?? (() => undefined);
  }

  private replyTo(options: LanguageModelV3CallOptions): { modelCall: number; reply: ModelReply; final: boolean } {
    const modelCall = this.calls++;
    this.onEvent({ kind: 'model-request', modelCall });
    const reply = this.script.reply(conversationOf(options.prompt));
    return { modelCall, reply, final: reply.message.toolCalls.length === 0 };
  }

  private toolCalls(reply: ModelReply): LanguageModelV3Content[] {
    return reply.message.toolCalls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.args) }));
  }

  private finishReason(final: boolean): LanguageModelV3FinishReason {
    return { unified: final ? 'stop' : 'tool-calls', raw: undefined };
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { modelCall, reply, final } = this.replyTo(options);
    for (const [chunk] of reply.chunks.entries()) this.onEvent({ kind: 'model-chunk', modelCall, chunk, chunks: reply.chunks.length, final });
    this.onEvent({ kind: 'model-reply', modelCall, final });
    const text: LanguageModelV3Content[] = reply.message.content === '' ? [] : [{ type: 'text', text: reply.message.content }];
    return { content: [...text, ...this.toolCalls(reply)], finishReason: this.finishReason(final), usage: NO_USAGE, warnings: [] };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const { modelCall, reply, final } = this.replyTo(options);
    const parts: (() => LanguageModelV3StreamPart)[] = [() => ({ type: 'stream-start', warnings: [] })];
    const id = `text-${modelCall}`;
    const text = reply.message.content !== '';
    if (text) parts.push(() => ({ type: 'text-start', id }));
    for (const [chunk, piece] of reply.chunks.entries()) {
      parts.push(() => {
        // The event is recorded as the chunk is handed over, as a network read would deliver it. A
        // reply of tool calls streams their JSON: raw chunks (the calls follow whole, with their ids).
        this.onEvent({ kind: 'model-chunk', modelCall, chunk, chunks: reply.chunks.length, final });
        return text ? { type: 'text-delta', id, delta: piece } : { type: 'raw', rawValue: piece };
      });
    }
    if (text) parts.push(() => ({ type: 'text-end', id }));
    for (const call of this.toolCalls(reply)) parts.push(() => call as LanguageModelV3StreamPart);
    parts.push(() => {
      this.onEvent({ kind: 'model-reply', modelCall, final });
      return { type: 'finish', usage: NO_USAGE, finishReason: this.finishReason(final) };
    });
    let next = 0;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      pull(controller) {
        const part = parts[next++];
        if (part === undefined) controller.close();
        else controller.enqueue(part());
      },
    });
    return { stream };
  }
}
