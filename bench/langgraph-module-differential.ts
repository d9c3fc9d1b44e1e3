// Every kill point both have: the bundled LangGraph engine's toolnode/async on Dana's task against
// the same agent written as a user's module (test/fixtures/langgraph-modules/dana-toolnode.ts).
// Prints one line per kill point and a summary; exits 1 on any disagreement.
//   npm run langgraph:module-differential

import { join } from 'node:path';
import { compareModuleWithBundled } from '../src/harness/differential/module-vs-bundled.js';
import { PROJECT_ROOT } from '../src/model/load.js';

const started = performance.now();
const rows = await compareModuleWithBundled({
  scenarioFile: join(PROJECT_ROOT, 'scenarios', 'lantern', 'T01-dana-torn-pad.json'),
  strategy: 'toolnode/async',
  module: join(PROJECT_ROOT, 'test', 'fixtures', 'langgraph-modules', 'dana-toolnode.ts'),
  inputFile: join(PROJECT_ROOT, 'test', 'fixtures', 'langgraph-modules', 'dana-input.json'),
});
for (const r of rows) console.log(`${r.agree ? 'same' : 'DIFFERENT'}  ${r.identity.padEnd(40)} bundled: ${r.bundled.join(', ') || 'holds'}; module: ${r.module.join(', ') || 'holds'}`);
const disagreements = rows.filter((r) => !r.agree).length;
console.log(`module vs bundled, langgraph toolnode/async on T01: ${rows.length} kill points, ${disagreements} disagreements (${((performance.now() - started) / 1000).toFixed(0)} s)`);
process.exitCode = disagreements === 0 ? 0 : 1;
