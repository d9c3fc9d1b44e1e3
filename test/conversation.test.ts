// The validator rejects what the chat APIs reject: a tool call without exactly one result.

import { describe, expect, it } from 'vitest';
import { conversationProblem, type Conversation } from '../src/model/conversation.js';
import { noKills, type RunOutcome } from '../src/harness/check/outcome.js';
import { judge } from '../src/harness/check/verdict.js';
import { loadScenarioFile } from '../src/model/load.js';

const ask = (...ids: string[]) => ({ role: 'assistant' as const, content: '', toolCalls: ids.map((id) => ({ id, name: 'get_order', args: {} })) });
const answer = (id: string) => ({ role: 'tool' as const, toolCallId: id, content: '{}' });
const user = { role: 'user' as const, content: 'hi' };
const final = { role: 'assistant' as const, content: 'done', toolCalls: [] };

describe('conversationProblem', () => {
  it('accepts parallel calls answered in any order', () => {
    expect(conversationProblem([user, ask('a', 'b'), answer('b'), answer('a'), final])).toBeNull();
  });

  it('accepts the customer writing again after a final answer (a later message)', () => {
    expect(conversationProblem([user, final, user, ask('a'), answer('a'), final])).toBeNull();
  });

  it.each<[string, Conversation, RegExp]>([
    ['a call with no result before the next reply', [user, ask('a', 'b'), answer('a'), final], /tool call b has no result before message 3/],
    ['a call with no result at the end', [user, ask('a')], /tool call a has no result before message 2/],
    ['a call answered twice', [user, ask('a'), answer('a'), answer('a')], /second result/],
    ['a result nobody asked for', [user, ask('a'), answer('z')], /did not ask for/],
    ['a result for an earlier reply', [user, ask('a'), answer('a'), ask('b'), answer('a')], /second result/],
    ['no customer message first', [ask('a'), answer('a')], /must start with the customer's message/],
    ['the customer writing while a call is open', [user, ask('a'), user], /message 2: the customer writes first, or again after a final answer/],
    ['the customer writing twice in a row', [user, final, user, user], /message 3: the customer writes first, or again after a final answer/],
  ])('rejects %s', (_what, conversation, problem) => {
    expect(conversationProblem(conversation)).toMatch(problem);
  });
});

describe('an invalid conversation, judged against the run never killed', () => {
  const dana = loadScenarioFile('scenarios/lantern/T01-dana-torn-pad.json');
  const run = (finalConversation: Conversation): RunOutcome => ({
    scenarioId: dana.id, strategy: 'own', schedule: noKills(), lives: [{ events: [], end: 'finished', killedAfter: null, error: null, errorKind: null }],
    picksTaken: [], pickWidths: [], delivered: [], writes: [], refusals: [], shop: {}, finalConversation,
  });
  // A graph that ends by calling a `Done` tool nothing answers leaves that call open in every run.
  const endsOnDone = [user, ask('a'), answer('a'), ask('done')];

  it('a recovery with the same problem as the run never killed is not charged with it', () => {
    const v = judge(dana, run(endsOnDone), run(endsOnDone));
    expect(v.conversationValid).toBe(true);
    expect(v.conversationProblem).toBeNull();
  });

  it('a recovery invalid where the run never killed is valid is charged', () => {
    const v = judge(dana, run([user, ask('a'), answer('a'), answer('a'), final]), run([user, ask('a'), answer('a'), final]));
    expect(v.conversationProblem).toMatch(/tool call a has a second result/);
  });

  it('a recovery invalid otherwise than the run never killed is charged with its own problem', () => {
    const v = judge(dana, run([user, ask('a'), answer('a'), answer('a'), ask('done')]), run(endsOnDone));
    expect(v.conversationValid).toBe(false);
    expect(v.conversationProblem).toMatch(/tool call a has a second result/);
  });
});
