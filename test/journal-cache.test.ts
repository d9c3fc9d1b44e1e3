// Recoveries from one state read the same journal text: it is parsed once, and each life gets a
// list of its own of the same messages, frozen, so that a life that changed one in place would
// fail at once instead of changing what another life reads.
import { describe, expect, it } from 'vitest';
import { JournalSerializer, parseJournal } from '../src/harness/engines/scripted/journal-format.js';
import type { Conversation } from '../src/model/conversation.js';

describe('a journal read back', () => {
  const conversation: Conversation = [
    { role: 'user', content: 'Please refund the mug.' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'call_refund', name: 'refund', args: { orderId: 'O-7', lineId: 'L1', amountCents: 1400 } }] },
    { role: 'tool', toolCallId: 'call_refund', content: '{"ok":true}' },
  ];
  const text = new JournalSerializer('T').text(conversation);

  it('gives each reader a list of its own, of the same messages', () => {
    const first = parseJournal(text, 'journal.json', 'T');
    const second = parseJournal(text, 'journal.json', 'T');
    expect(first).toEqual(conversation);
    expect(second).not.toBe(first);
    expect(second[1]).toBe(first[1]);
    first.push({ role: 'user', content: 'and the other one' });
    expect(second).toHaveLength(3);
  });

  it('whose messages cannot be changed in place', () => {
    const [, reply] = parseJournal(text, 'journal.json', 'T');
    expect(() => {
      (reply as { content: string }).content = 'changed';
    }).toThrow(TypeError);
    expect(() => {
      ((reply as { toolCalls: { args: Record<string, unknown> }[] }).toolCalls[0]!.args).amountCents = 1;
    }).toThrow(TypeError);
  });

  it('a resumed serializer writes what one that saved every message itself writes', () => {
    const resumed = new JournalSerializer('T');
    const read = parseJournal(text, 'journal.json', 'T');
    resumed.resume(read, text);
    const more: Conversation = [...read, { role: 'assistant', content: 'Refunded $14.00.', toolCalls: [] }];
    expect(resumed.text(more)).toBe(new JournalSerializer('T').text(more));
  });
});
