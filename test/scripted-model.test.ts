// The scripted model: the same conversation gets the same reply; a diverged one gets its branch.

import { describe, expect, it } from 'vitest';
import type { Conversation } from '../src/model/conversation.js';
import { lanternScenario } from '../src/model/load.js';
import { ConversationRejected, ScriptedModel, splitEvenly } from '../src/model/scripted-model.js';

const grace = lanternScenario('T02');
const model = new ScriptedModel(grace);

/** Plays the scripted conversation, answering each call with the given result. */
function playTo(steps: number, resultFor: (callId: string) => unknown): Conversation {
  const conversation: Conversation = [{ role: 'user', content: grace.customerMessage }];
  for (let i = 0; i < steps; i++) {
    const reply = model.reply(conversation).message;
    conversation.push(reply);
    for (const call of reply.toolCalls) conversation.push({ role: 'tool', toolCallId: call.id, content: JSON.stringify(resultFor(call.id)) });
  }
  return conversation;
}

describe('ScriptedModel', () => {
  it('starts with the scenario start step, and streams a reply that adds up to it', () => {
    const reply = model.reply([{ role: 'user', content: grace.customerMessage }]);
    expect(reply.step.name).toBe('find-customer');
    expect(reply.chunks.join('')).toBe(JSON.stringify(reply.message.toolCalls));
  });

  it('gives the same reply to the same conversation', () => {
    const conversation = playTo(2, () => ({ ok: true, refunds: [] }));
    expect(model.reply(conversation)).toBe(model.reply(structuredClone(conversation)));
  });

  it('follows the branch for a lookup that shows an earlier refund', () => {
    const conversation = playTo(3, () => ({ ok: true, refunds: [{ refundId: 1, lineId: 'L1', amountCents: 6800 }] }));
    expect(model.reply(conversation).step.name).toBe('answer-already');
  });

  it('follows the branch for a refused write, then retries, then hands off', () => {
    const refused = (id: string) => (id.startsWith('call_refund') ? { ok: false, refused: 'over-refund', message: 'no' } : { ok: true, refunds: [] });
    expect(model.reply(playTo(4, refused)).step.name).toBe('refund-retry');
    expect(model.reply(playTo(5, refused)).step.name).toBe('hand-off');
  });

  it('rejects a conversation with an unanswered tool call, as the APIs do', () => {
    const conversation = playTo(1, () => ({ ok: true }));
    conversation.pop();
    expect(() => model.reply(conversation)).toThrow(ConversationRejected);
  });

  it('splits a reply into the requested number of chunks', () => {
    expect(splitEvenly('abcdefg', 3)).toEqual(['ab', 'cd', 'efg']);
  });
});
