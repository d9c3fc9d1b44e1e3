// The bundled LangGraph approval shape against its scripted model at every kill point both have,
// on every bundled task that refunds, keyed and unkeyed, then the broken scripted variant that asks
// the person before the reply is saved, which must disagree somewhere (a check that cannot fail is
// a defect). LangGraph's side is explored by equivalence. Exit 1 on any disagreement of a sound
// pair, or when the broken variant agrees everywhere.
//
//   npm run approval:differential                       every refund task (minutes)
//   npm run approval:differential -- --scenarios T01    one task

import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { APPROVAL_MODELLED_BY, compareApprovalWithScripted, type ApprovalComparison } from '../src/harness/differential/approval-vs-scripted.js';
import { lanternScenarios } from '../src/model/load.js';
import type { Scenario } from '../src/model/scenario.js';
import { seconds, timed } from './timing.js';

const BROKEN = { langgraph: 'approval/sync', scripted: 'journal+approval/ask-before-save' };

const refunds = (s: Scenario) => [...s.steps.values()].some((step) => step.kind === 'calls' && step.calls.some((c) => c.tool === 'refund'));

function line(c: ApprovalComparison, elapsed: string): string {
  const differing = c.rows.filter((r) => r.differences.length > 0);
  return `| ${c.scenarioId} | ${c.langgraph} | ${c.scripted} | ${c.langgraphKillPoints} | ${c.rows.length} | ${c.rows.filter((r) => r.doneTwice).length} | ${differing.length} | ${c.asksBeforeEveryRefund.langgraph && c.asksBeforeEveryRefund.scripted ? 'yes' : 'NO'} | ${elapsed} |`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { scenarios: { type: 'string' }, concurrency: { type: 'string' } } });
  const all = lanternScenarios().filter(refunds);
  const chosen = values.scenarios === undefined ? all : values.scenarios.split(',').map((id) => all.find((s) => s.id === id) ?? fail(`--scenarios: no bundled task that refunds is "${id}" (${all.map((s) => s.id).join(', ')})`));
  const concurrency = Number(values.concurrency ?? availableParallelism());
  console.log('| task | langgraph | scripted | kill points | shared | done twice | disagree | asks before every refund | seconds |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  const problems: string[] = [];
  let brokenCaught = false;
  for (const scenario of chosen) {
    for (const [langgraph, scripted] of [...Object.entries(APPROVAL_MODELLED_BY), [BROKEN.langgraph, BROKEN.scripted]]) {
      const { value: result, ms } = await timed(() => compareApprovalWithScripted(scenario, { langgraph: langgraph!, scripted, concurrency }));
      console.log(line(result, seconds(ms)));
      const differing = result.rows.filter((r) => r.differences.length > 0).map((r) => `${scenario.id} ${langgraph} vs ${scripted} at ${r.identity}: ${r.differences.join('; ')}`);
      if (scripted === BROKEN.scripted) brokenCaught ||= differing.length > 0;
      else problems.push(...differing);
      if (!result.asksBeforeEveryRefund.langgraph || !result.asksBeforeEveryRefund.scripted) problems.push(`${scenario.id} ${langgraph} / ${scripted}: a refund ran before its approval`);
    }
  }
  if (!brokenCaught) problems.push(`${BROKEN.scripted} agreed with ${BROKEN.langgraph} everywhere: the differential cannot tell them apart`);
  console.log(problems.length === 0 ? '\nThe approval shape and its scripted model agree at every shared kill point; the broken variant is caught.' : `\n${problems.join('\n')}`);
  if (problems.length > 0) process.exitCode = 1;
}

function fail(message: string): never {
  console.error(`approval-differential: ${message}`);
  process.exit(2);
}

await main();
