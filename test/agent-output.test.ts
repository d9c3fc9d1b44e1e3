// With --json, stdout is killpoint's alone: a module that logs as agents do (at load, in its
// handler, in its steps) has its output on stderr, whether its lives run on killpoint's own thread
// (Restate's in-process tier), on threads of killpoint's process (LangGraph's, Vercel's) or in
// processes of their own. Each runs the binary: the stdout under test is a real one.

import { describe, expect, test } from 'vitest';
import { killpointCommand } from './helpers.js';

const parsesAsJson = (text: string): unknown => JSON.parse(text);

describe('--json while the agent logs: stdout parses, the logs are on stderr', () => {
  // The tiny graph's node writes its effect itself (a finding: exit 1); the Workflow SDK keeps a step's console to itself.
  test.each<[string, string[], 0 | 1, string | null]>([
    ['Restate, in this process', ['--restate', 'test/fixtures/restate-modules/logs.ts', '--input', 'test/fixtures/restate-modules/input.json'], 0, 'refunding O-7'],
    ['LangGraph, on threads', ['--langgraph', 'test/fixtures/langgraph-modules/logs.ts', '--input', '{}'], 1, 'graph module: building the graph'],
    ['Vercel Workflow, on threads', ['--vercel-workflow', 'test/fixtures/vercel-modules/workflows/logs.ts', '--input', 'test/fixtures/vercel-modules/input.json'], 0, null],
  ])('%s', async (_where, module, status, logged) => {
    const r = await killpointCommand(['check', ...module, '--json']);
    expect(r.status, r.stderr).toBe(status);
    expect(parsesAsJson(r.stdout)).toMatchObject([{ ok: status === 0, tier: 'in-process' }]);
    if (logged !== null) expect(r.stderr).toContain(logged);
    expect(r.left).toEqual([]);
  }, 180_000);

  test('Restate, a process each life', async () => {
    const r = await killpointCommand(['check', '--restate', 'test/fixtures/restate-modules/logs.ts', '--input', 'test/fixtures/restate-modules/input.json', '--tier', 'process', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(parsesAsJson(r.stdout)).toMatchObject([{ ok: true, tier: 'process' }]);
    expect(r.left).toEqual([]);
  }, 180_000);
});
