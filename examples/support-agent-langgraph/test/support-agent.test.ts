// The support agent, checked by killpoint as it is: each line hands killpoint the module that
// builds the graph and the input it runs on. A kill after a tool commits its effect and before
// LangGraph saves the tool's result runs the call again: only a key built from the thread and the
// tool call makes that repeat harmless.

import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { checkLangGraph, checkLangGraphSchedule } from 'killpoint';
import { killpointTests } from 'killpoint/vitest';

const input = JSON.parse(readFileSync('input.json', 'utf8'));

// Keys: every kill point of the run, in the default order of the two parallel calls, survives
// (interleavingBound: 1 keeps the example quick; leave it out to explore both orders).
killpointTests('support agent with keys', { langgraph: 'src/agent-keyed.ts', input, interleavingBound: 1 });

// No keys: the refund is done twice, at the earliest kill point that shows it.
test('without keys, a kill right after the refund makes the recovery refund again', async () => {
  const check = await checkLangGraph({ module: 'src/agent.ts', inputFile: 'input.json', interleavingBound: 1 });
  expect(check.ok).toBe(false);
  expect(check.minimal?.killAt).toEqual(['tool-result[call_1_refund]']);
  expect(check.minimal?.differences[0]).toMatch(/^refund O-7\/L1 committed twice/);
  expect(check.minimal?.replay).toMatch(/^npx killpoint check --langgraph src\/agent\.ts --input input\.json --schedule 11( --interleaving 0)?$/);
}, 600_000);

// Keys in the tools do not cover a write the agent node makes itself: killed after the node
// returned and before its update was saved, the node runs again and writes again.
test('a write in the agent node, outside any tool, is repeated by a kill before its update is saved', async () => {
  const check = await checkLangGraphSchedule({ module: 'src/agent-node-effect.ts', input }, [-1]);
  const events = check.judged.baseline.lives[0]!.events;
  const lastNodeEnd = events.findLastIndex((e) => e.kind === 'node-end');
  const killed = await checkLangGraphSchedule({ module: 'src/agent-node-effect.ts', input }, [lastNodeEnd]);
  expect(killed.ok).toBe(false);
  expect(killed.failure.killAt).toEqual(['node-end[agent]#2']);
  expect(killed.failure.differences[0]).toMatch(/^note crm committed twice/);
}, 600_000);
