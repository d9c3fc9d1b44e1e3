// A real engine's model step calls the scripted model, which answers at once; a real model's reply
// streams in over the network. So every engine's model step hands its events out the same way,
// chunk by chunk with a turn of the event loop between them, and a kill can land between chunks.

import type { AssistantMessage, Conversation } from '../../model/conversation.js';
import type { ModelReply, ScriptedModel } from '../../model/scripted-model.js';
import type { EmitEvent } from './child-main.js';

/** Emits a reply's chunks, each after a turn of the event loop, then the reply itself. */
export async function streamReply(reply: ModelReply, modelCall: number, emit: EmitEvent): Promise<void> {
  const final = reply.step.kind === 'answer';
  for (let chunk = 0; chunk < reply.chunks.length; chunk++) {
    await Promise.resolve(); // a chunk arrives as a network read would: after a turn of the event loop
    emit({ kind: 'model-chunk', modelCall, chunk, chunks: reply.chunks.length, final });
  }
  emit({ kind: 'model-reply', modelCall, final });
}

/**
 * One call of the scenario's scripted model as a real engine's model step makes it: the request,
 * then the reply streamed. A conversation the model rejects is thrown as `rejected` makes it (an
 * engine's own error, a terminal one where a retry would only be rejected again).
 */
export async function scriptedModelCall(script: ScriptedModel, conversation: Conversation, modelCall: number, emit: EmitEvent, rejected: (error: unknown) => unknown = (error) => error): Promise<AssistantMessage> {
  emit({ kind: 'model-request', modelCall });
  let reply: ModelReply;
  try {
    reply = script.reply(conversation);
  } catch (error) {
    throw rejected(error);
  }
  await streamReply(reply, modelCall, emit);
  return reply.message;
}
