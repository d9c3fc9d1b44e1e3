import { describe, it, expect } from 'vitest';
import { parseScenario, ScenarioError } from '../src/model/scenario.js';
import { ScriptedModel } from '../src/model/scripted-model.js';
import type { Conversation } from '../src/model/conversation.js';

// A two-order lookup whose next step depends on the orders' status, as a restarted agent that
// finds its earlier work done would branch.
function scenario(next: unknown) {
  return parseScenario({
    id: 'X', title: 'x', customerMessage: 'cancel O-1 and O-2',
    shop: { customers: [{ id: 'C', name: 'n', email: 'e@x', address: 'a' }], orders: [] },
    model: { start: 'look', steps: {
      look: { calls: [{ id: 'a', tool: 'get_order', args: { orderId: 'O-1' } }, { id: 'b', tool: 'get_order', args: { orderId: 'O-2' } }], next },
      both: { say: 'both were already cancelled' },
      first: { say: 'the first was already cancelled' },
      neither: { say: 'neither was cancelled' },
    } },
  }, 'test');
}

function afterLookup(statusA: string, statusB: string): Conversation {
  const call = (id: string, orderId: string) => ({ id, name: 'get_order', args: { orderId } });
  return [
    { role: 'user', content: 'cancel O-1 and O-2' },
    { role: 'assistant', content: '', toolCalls: [call('a', 'O-1'), call('b', 'O-2')] },
    { role: 'tool', toolCallId: 'a', content: JSON.stringify({ ok: true, order: { id: 'O-1', status: statusA } }) },
    { role: 'tool', toolCallId: 'b', content: JSON.stringify({ ok: true, order: { id: 'O-2', status: statusB } }) },
  ];
}

describe('branch conditions on a field value', () => {
  const next = [
    { when: [{ call: 0, field: 'status', equals: 'cancelled' }, { call: 1, field: 'status', equals: 'cancelled' }], goto: 'both' },
    { when: { call: 0, field: 'status', equals: 'cancelled' }, goto: 'first' },
    { goto: 'neither' },
  ];

  it('takes a list of conditions only when all of them hold', () => {
    const model = new ScriptedModel(scenario(next));
    expect(model.reply(afterLookup('cancelled', 'cancelled')).message.content).toBe('both were already cancelled');
    expect(model.reply(afterLookup('cancelled', 'processing')).message.content).toBe('the first was already cancelled');
    expect(model.reply(afterLookup('processing', 'cancelled')).message.content).toBe('neither was cancelled');
  });

  it('compares numbers exactly (leftCents equals 0)', () => {
    const s = scenario([{ when: { call: 1, field: 'leftCents', equals: 0 }, goto: 'both' }, { goto: 'neither' }]);
    const conv = afterLookup('x', 'y');
    conv[3] = { role: 'tool', toolCallId: 'b', content: JSON.stringify({ ok: true, leftCents: 0 }) };
    expect(new ScriptedModel(s).reply(conv).message.content).toBe('both were already cancelled');
    conv[3] = { role: 'tool', toolCallId: 'b', content: JSON.stringify({ ok: true, leftCents: '0' }) };
    expect(new ScriptedModel(s).reply(conv).message.content).toBe('neither was cancelled');
  });

  it('names the field when "field" comes without "equals"', () => {
    expect(() => scenario([{ when: { call: 0, field: 'status' }, goto: 'both' }, { goto: 'neither' }]))
      .toThrow(new ScenarioError('test', 'model.steps.look.next[0].when', '"field" and "equals" together'));
    expect(() => scenario([{ when: [], goto: 'both' }, { goto: 'neither' }])).toThrow(ScenarioError);
  });
});
