// The same agent as the bundled LangGraph engine's toolnode/async and as a user's module gives the
// same verdict at the kill points both have: a sample here (the refund's gap and the save that
// closes it); `npm run langgraph:module-differential` compares every one.

import { join } from 'node:path';
import { expect, test } from 'vitest';
import { compareModuleWithBundled } from '../src/harness/differential/module-vs-bundled.js';
import { PROJECT_ROOT } from '../src/model/load.js';

test("Dana's task: the bundled toolnode/async and the same agent as a user's module agree at sampled kill points", async () => {
  const rows = await compareModuleWithBundled({
    scenarioFile: join(PROJECT_ROOT, 'scenarios', 'lantern', 'T01-dana-torn-pad.json'),
    strategy: 'toolnode/async',
    module: 'test/fixtures/langgraph-modules/dana-toolnode.ts',
    inputFile: 'test/fixtures/langgraph-modules/dana-input.json',
    identities: ['tool-result[call_refund]', 'writes-saved[call_refund]'],
  });
  expect(rows.filter((r) => !r.agree)).toEqual([]);
  // The sample is not all passes: the refund's gap fails the same way on both sides.
  expect(rows.find((r) => r.identity === 'tool-result[call_refund]')?.bundled.length).toBeGreaterThan(0);
}, 300_000);
