import { expect, test } from 'vitest';
import { checkAgentSchedule } from 'killpoint';
import { killpointTests } from 'killpoint/vitest';

const agent = ['node', '--import', 'tsx', 'src/agent.ts'];

// With its key (the run and the AI SDK's tool call id, stable because the scripted model gives it),
// the agent survives a kill after every event: model chunks, tool calls, the journal's saves.
killpointTests('AI SDK refund agent', { agent, kills: 1, corpus: 'test/killpoint-corpus' });

// Without the key, the kill right after the refund's commit makes the resumed loop refund again.
// (One schedule, replayed: event 13 of the first life is the refund's shop commit.)
test('without keys, the resumed loop refunds Dana twice after a kill in the gap', async () => {
  const replay = await checkAgentSchedule({ agent: [...agent, '--no-keys'] }, [13]);
  expect(replay.ok).toBe(false);
  expect(replay.failure.killAt).toEqual(['shop-commit[call_refund]']);
  expect(replay.failure.failed).toContain('done-twice');
}, 300_000);
