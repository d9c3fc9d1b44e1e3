// A real engine's model step calls the scripted model, which answers at once; a real model's reply
// streams in over the network. So every engine's model step hands its events out the same way,
// chunk by chunk with a turn of the event loop between them, and a kill can land between chunks.

import type { ModelReply } from '../../model/scripted-model.js';
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
