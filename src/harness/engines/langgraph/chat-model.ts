// A LangChain chat model driven by a killpoint scenario, for LangGraph agents under test (and for
// anyone who wants a deterministic model in their own graph): killpoint's scripted model walks the
// scenario's step graph along the conversation and gives the next reply, as an AIMessage whose
// tool calls carry the scenario's stable ids. The reply arrives in the scenario's chunks: each is
// a model-chunk event (and a new-token callback), then model-reply. The model rejects a
// conversation a model API would reject (a tool call left without a result, for one).

import { BaseChatModel, type BaseChatModelParams } from '@langchain/core/language_models/chat_models';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import type { BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { Scenario } from '../../../model/scenario.js';
import { ScriptedModel } from '../../../model/scripted-model.js';
import { toAIMessage, toConversation } from './convert.js';

/** An instrumented moment of the model, for a caller that records events. */
export type ModelEvent =
  | { kind: 'model-request'; modelCall: number }
  | { kind: 'model-chunk'; modelCall: number; chunk: number; chunks: number; final: boolean }
  | { kind: 'model-reply'; modelCall: number; final: boolean };

export interface ScriptedChatModelParams extends BaseChatModelParams {
  scenario: Scenario;
  onEvent?: (event: ModelEvent) => void;
}

export class ScriptedChatModel extends BaseChatModel {
  private readonly script: ScriptedModel;
  private readonly onEvent: (event: ModelEvent) => void;
  private calls = 0;

  constructor(params: ScriptedChatModelParams) {
    super(params);
    this.script = new ScriptedModel(params.scenario);
    this.onEvent = params.onEvent ?? (() => undefined);
  }

  _llmType(): string {
    return 'killpoint-scripted';
  }

  /** The tools are the scenario's: binding them changes nothing. */
  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[], _options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const modelCall = this.calls++;
    this.onEvent({ kind: 'model-request', modelCall });
    const reply = this.script.reply(toConversation(messages));
    const final = reply.step.kind === 'answer';
    for (const [chunk, piece] of reply.chunks.entries()) {
      await Promise.resolve(); // a chunk arrives as a network read would: after a turn of the event loop
      await runManager?.handleLLMNewToken(piece);
      this.onEvent({ kind: 'model-chunk', modelCall, chunk, chunks: reply.chunks.length, final });
    }
    const message = toAIMessage(reply);
    this.onEvent({ kind: 'model-reply', modelCall, final });
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}
