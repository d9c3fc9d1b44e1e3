// The validator rejects what the chat APIs reject: a tool call without exactly one result.

import { describe, expect, it } from 'vitest';
import { conversationProblem, type Conversation } from '../src/model/conversation.js';

const ask = (...ids: string[]) => ({ role: 'assistant' as const, content: '', toolCalls: ids.map((id) => ({ id, name: 'get_order', args: {} })) });
const answer = (id: string) => ({ role: 'tool' as const, toolCallId: id, content: '{}' });
const user = { role: 'user' as const, content: 'hi' };
const final = { role: 'assistant' as const, content: 'done', toolCalls: [] };

describe('conversationProblem', () => {
  it('accepts parallel calls answered in any order', () => {
    expect(conversationProblem([user, ask('a', 'b'), answer('b'), answer('a'), final])).toBeNull();
  });

  it.each<[string, Conversation, RegExp]>([
    ['a call with no result before the next reply', [user, ask('a', 'b'), answer('a'), final], /tool call b has no result before message 3/],
    ['a call with no result at the end', [user, ask('a')], /tool call a has no result before message 2/],
    ['a call answered twice', [user, ask('a'), answer('a'), answer('a')], /second result/],
    ['a result nobody asked for', [user, ask('a'), answer('z')], /did not ask for/],
    ['a result for an earlier reply', [user, ask('a'), answer('a'), ask('b'), answer('a')], /second result/],
    ['no customer message first', [ask('a'), answer('a')], /must start with the customer's message/],
  ])('rejects %s', (_what, conversation, problem) => {
    expect(conversationProblem(conversation)).toMatch(problem);
  });
});
