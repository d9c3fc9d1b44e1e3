// A person in the loop, at speed: every schedule of up to two kills of the approval example's keyed
// graph (two questions, "approve" then "decline"), its lives in process as a user's graph's are by
// default, timed from the check's start to its verdict. The target (a whole check within 30 s on 2
// cores) is printed beside the figure, met or missed, from this run; the check must pass (exit 1
// when it does not, or when the target is missed).
//
//   npx tsx bench/waits.ts [--kills 1|2] [--target-s 30]

import { parseArgs } from 'node:util';
import { checkLangGraph } from '../src/harness/api/check-module.js';

const { values } = parseArgs({ options: { kills: { type: 'string' }, 'target-s': { type: 'string' } } });
const kills = values.kills === '1' ? 1 : 2;
const targetS = Number(values['target-s'] ?? 30);
const EXAMPLE = 'examples/refund-approval-langgraph';

const started = performance.now();
const check = await checkLangGraph({ module: `${EXAMPLE}/src/agent-keyed.ts`, inputFile: `${EXAMPLE}/input-two.json`, resumeFile: `${EXAMPLE}/resume-two.json`, kills });
const seconds = (performance.now() - started) / 1000;
const reduction = check.exploration.reduction;
console.log(`waits: the keyed approval graph, two questions, every schedule of up to ${kills} kill${kills === 1 ? '' : 's'} in process`);
console.log(`  ${check.schedulesExplored} schedules, ${reduction?.livesRun ?? '?'} lives run (${reduction?.distinctStates ?? '?'} distinct states), ${check.ok ? 'every check holds' : 'a check FAILED'}`);
const met = seconds <= targetS;
console.log(`  ${seconds.toFixed(1)} s, target ${targetS} s: ${met ? 'met' : 'MISSED'}`);
if (!check.ok) console.log(check.report);
process.exit(check.ok && met ? 0 : 1);
