import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { checkScenario } from 'killpoint';

// With keys (thread id + tool call id), LangGraph survives a SIGKILL after every event of the run:
// the model's chunks, the tool's commit, the checkpointer's saves, the answer.
test('createReactAgent v2 with keys survives every kill point', async () => {
  const check = await checkScenario({ scenario: 'scenario.json', engine: 'langgraph', strategy: 'react/sync+keys' });
  expect(check.report).toContain('react/sync+keys');
  expect(check.ok).toBe(true);
  expect(check.schedulesExplored).toBeGreaterThan(10);
}, 300_000);

// Without keys, the kill right after the refund's commit (before LangGraph saves the task's
// writes) makes the recovery refund again; the installed command replays that one kill point. It
// exits 0: without keys, exactly-once is not promised, and the report says so.
test('without keys, the command replays the kill in the gap: the refund is committed twice', () => {
  const r = spawnSync('npx', ['killpoint', 'check', 'scenario.json', '--engine', 'langgraph', '--strategy', 'react/sync', '--schedule', 'shop-commit[call_refund]'], { encoding: 'utf8' });
  expect(r.stdout).toContain('refund O-7/L1 committed twice');
  expect(r.stdout).toMatch(/fails checks the strategy does not promise: done twice/);
  expect(r.status).toBe(0);
}, 300_000);
