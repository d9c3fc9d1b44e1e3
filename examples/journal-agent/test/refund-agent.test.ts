import { expect, test } from 'vitest';
import { checkAgent, checkAgentSchedule } from 'killpoint';
import { killpointTests } from 'killpoint/vitest';

const agent = ['node', '--import', 'tsx', 'src/refund-agent.ts'];

// The fixed agent: every kill point survives (kills: 2 also kills each recovery at each of its points: about n² runs).
killpointTests('refund agent with keys', { agent: [...agent, '--keys'], kills: 1, corpus: 'test/killpoint-corpus' });

// The agent without keys has the gap, and killpoint finds it at its minimal kill point: right
// after the refund's commit, before the journal records it.
test('without keys, a kill right after the refund commits makes the resume refund Dana twice', async () => {
  const check = await checkAgent({ agent });
  expect(check.ok).toBe(false);
  expect(check.minimal?.killAt).toEqual(['shop-commit[step-2]']);
  expect(check.minimal?.failed).toContain('done-twice');
  expect(check.minimal?.replay).toBe('npx killpoint harness --schedule 5 -- node --import tsx src/refund-agent.ts');
  expect(check.report).toContain('refund O-1042/L1 committed twice');
}, 300_000);

// One kill, replayed as the search's replay line prints it (kill point 5 is the refund's commit):
// quicker than the whole search when a fix is being tried.
test('one kill replayed: right after the refund commits, the resume refunds Dana again', async () => {
  const replay = await checkAgentSchedule({ agent }, [5]);
  expect(replay.ok).toBe(false);
  expect(replay.failure.killAt).toEqual(['shop-commit[step-2]']);
  expect(replay.failure.failed).toContain('done-twice');
}, 300_000);
