// The refund approval, checked by killpoint across its wait: each line hands killpoint the module
// that builds the graph, its input and the person's answers (one per interrupt(), in order).
// killpoint kills the run at every kill point, the wait and the answer's hand-over among them,
// and hands every recovery the same answer at the same wait.

import { expect, test } from 'vitest';
import { checkLangGraph } from 'killpoint';
import { killpointTests } from 'killpoint/vitest';

// Keys: every kill point of the run, across the wait, survives.
killpointTests('refund approval with keys', { langgraph: 'src/agent-keyed.ts', inputFile: 'input.json', resume: [true] });

// No keys: killed after the approved refund and before LangGraph saved its node, the recovery refunds again.
test('without keys, a kill after the refund that followed the approval makes the recovery refund again', async () => {
  const check = await checkLangGraph({ module: 'src/agent.ts', inputFile: 'input.json', resumeFile: 'resume.json' });
  expect(check.ok).toBe(false);
  expect(check.minimal?.killAt).toEqual(['node-end[refund]']);
  expect(check.minimal?.differences[0]).toMatch(/^refund A-17\/L1 committed twice/);
  expect(check.report).toContain('resume ask#1: turn delivered');
  expect(check.minimal?.replay).toBe('npx killpoint check --langgraph src/agent.ts --input input.json --resume resume.json --schedule 17');
}, 600_000);

// An email sent in the node that asks goes again when LangGraph runs that node again on resume: no kill needed.
test('an email sent before interrupt() in the node that asks is sent twice without any kill', async () => {
  const check = await checkLangGraph({ module: 'src/agent-note-when-asking.ts', inputFile: 'input.json', resume: [true] });
  expect(check.ok).toBe(false);
  expect(check.report).toContain('done twice without any kill: ask runs again when resumed');
  expect(check.exploration.repeatsWithoutKill[0]?.write).toMatchObject({ kind: 'email', args: '{"subject":"we are looking at it"}' });
}, 600_000);

// Two lines, two questions: the first approved, the second declined; each recovery is handed the answer of its wait.
test('two questions answered "approve" then "decline" survive every kill point', async () => {
  const check = await checkLangGraph({ module: 'src/agent-keyed.ts', inputFile: 'input-two.json', resumeFile: 'resume-two.json' });
  expect(check.report).toContain('every promised check held');
  expect(check.ok).toBe(true);
}, 600_000);
