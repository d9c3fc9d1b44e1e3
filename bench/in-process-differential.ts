// Real engines killed in process against the same engines killed by SIGKILL, at every single kill
// point of the bundled tasks (src/harness/differential/in-process-vs-process.ts): the proof the
// in-process tier stands on. One line per engine:
//   in-process vs process, <engine>: <n> kill points, <d> disagreements, <r>x faster
// where <r> is the process tier's time over the in-process tier's for the same kill points, both
// measured in this run. Exit 1 on any disagreement, each printed with its task, system, kill point
// and what differs.
//
//   npm run differential:in-process
//   npm run differential:in-process -- --systems langgraph:react/sync --scenarios T01,T03 --concurrency 2
//   npm run differential:in-process -- --systems '' --modules dbos:examples/support-agent-dbos/src/workflow.ts
// A user's module is run from scratch at every kill point by SIGKILL (the ground truth), whether or
// not its tier explores by equivalence.

import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { engineNamed } from '../src/harness/registry.js';
import { lanternScenarios } from '../src/model/load.js';
import { compareTiers, fromScratch } from '../src/harness/differential/in-process-vs-process.js';
import { startProgress } from '../src/harness/cli/progress.js';
import { langGraphModuleSpec, langGraphModuleSystem } from '../src/harness/engines/langgraph/module/system.js';
import { dbosModuleSpec, dbosModuleSystem } from '../src/harness/engines/dbos/module/system.js';
import { restateModuleSpec, restateModuleSystem } from '../src/harness/engines/restate/module/system.js';
import { vercelModuleSpec, vercelModuleSystem } from '../src/harness/engines/vercel-workflow/module/system.js';
import type { SystemUnderTest } from '../src/harness/engine.js';
import { runSchedule } from '../src/harness/session.js';
import type { Scenario } from '../src/model/scenario.js';

/**
 * The systems the in-process tier is proved on, by engine: a plain and a keyed one each. Vercel's
 * SIGKILL side is most of the command's time (over half an hour of its hour on 2 cores): the SDK
 * loads in every child, and replays the run in a fresh VM context at each step.
 */
const DEFAULT_SYSTEMS = ['langgraph:react/sync', 'langgraph:toolnode/sync+keys', 'dbos:pglite/workflow', 'dbos:pglite/workflow+keys', 'vercel-workflow:durable-agent', 'vercel-workflow:durable-agent+keys'];
/** Users' own agents (engine:module), each on the input.json beside it or its src folder: the example support agents and the test workflows of Vercel, without and with keys. */
const DEFAULT_MODULES = [
  'langgraph:examples/support-agent-langgraph/src/agent.ts',
  'langgraph:examples/support-agent-langgraph/src/agent-keyed.ts',
  'langgraph:examples/support-agent-langgraph/src/agent-node-effect.ts',
  'dbos:examples/support-agent-dbos/src/workflow.ts',
  'dbos:examples/support-agent-dbos/src/workflow-keyed.ts',
  'vercel-workflow:test/fixtures/vercel-modules/workflows/unkeyed.ts',
  'vercel-workflow:test/fixtures/vercel-modules/workflows/keyed.ts',
];

/** The input of a user's module: input.json in its folder, else beside its src folder (an example's). */
function inputOf(module: string): string {
  const here = join(dirname(module), 'input.json');
  return existsSync(here) ? here : join(dirname(dirname(module)), 'input.json');
}

/** A user's module of an engine with an in-process tier, on its input, in either tier; and what the module holds. */
const MODULE_SYSTEMS: Record<string, { holds: string; system: (module: string, tier: 'in-process' | 'process') => SystemUnderTest }> = {
  langgraph: { holds: 'graph', system: (module, tier) => langGraphModuleSystem(langGraphModuleSpec({ module, inputFile: inputOf(module) }), tier) },
  dbos: { holds: 'workflow', system: (module, tier) => dbosModuleSystem(dbosModuleSpec({ module, inputFile: inputOf(module) }), tier) },
  restate: { holds: 'service', system: (module, tier) => restateModuleSystem(restateModuleSpec({ module, inputFile: inputOf(module) }), tier) },
  'vercel-workflow': { holds: 'workflow', system: (module, tier) => vercelModuleSystem(vercelModuleSpec({ module, inputFile: inputOf(module) }), tier) },
};

/**
 * Every order of the task's parallel calls (up to `bound`), as the picks that give it: a run never
 * killed with each prefix of picks, branching wherever more than one call could go next.
 */
async function ordersOf(system: SystemUnderTest, scenario: Scenario, bound = 32): Promise<number[][]> {
  const orders: number[][] = [];
  const visit = async (prefix: number[]): Promise<void> => {
    if (orders.length >= bound) return;
    const run = await runSchedule(system, scenario, { kills: [], interleaving: prefix });
    orders.push(run.picksTaken);
    for (let i = prefix.length; i < run.picksTaken.length; i++) {
      for (let other = 1; other < run.pickWidths[i]!; other++) await visit([...run.picksTaken.slice(0, i), other]);
    }
  };
  await visit([]);
  return orders;
}

function fail(message: string): never {
  console.error(`in-process-differential: ${message}`);
  process.exit(2);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { systems: { type: 'string' }, scenarios: { type: 'string' }, concurrency: { type: 'string' }, modules: { type: 'string' } } });
  const concurrency = values.concurrency === undefined ? availableParallelism() : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) fail(`--concurrency: expected a whole number >= 1, got "${values.concurrency}"`);
  const all = lanternScenarios();
  const scenarios = values.scenarios === undefined ? all : values.scenarios.split(',').map((id) => all.find((s) => s.id === id) ?? fail(`--scenarios: no bundled task "${id}"`));
  const byEngine = new Map<string, { killPoints: number; disagreements: string[]; inProcessMs: number; processMs: number }>();
  for (const spec of values.systems?.split(',').filter((x) => x !== '') ?? DEFAULT_SYSTEMS) {
    const [engineName, name] = spec.split(':');
    const engine = engineNamed(engineName ?? '') ?? fail(`--systems: "${spec}" names no engine (expected engine:system)`);
    if (!(engine.tiers ?? []).includes('in-process')) fail(`--systems: the ${engine.name} engine has no in-process tier`);
    const inProcess = engine.system(name ?? '', { tier: 'in-process' }) ?? fail(`--systems: the ${engine.name} engine has no system "${name}"`);
    const processTier = engine.system(name!, { tier: 'process' })!;
    const sum = byEngine.get(engine.name) ?? { killPoints: 0, disagreements: [], inProcessMs: 0, processMs: 0 };
    byEngine.set(engine.name, sum);
    const progress = startProgress(`${engine.name} ${name}`, scenarios.length);
    for (const scenario of scenarios) {
      const r = await compareTiers(scenario, inProcess, processTier, { concurrency });
      sum.killPoints += r.killPoints;
      sum.disagreements.push(...r.disagreements);
      sum.inProcessMs += r.inProcessMs;
      sum.processMs += r.processMs;
      progress.tick(`${scenario.id}: ${r.killPoints} kill points, ${r.disagreements.length} disagreements, ${(r.inProcessMs / 1000).toFixed(1)} s in process, ${(r.processMs / 1000).toFixed(1)} s by SIGKILL`);
    }
    progress.end();
  }
  // A user's agent runs its own task: every kill point of it, from scratch, on both tiers, in every order of its parallel calls.
  for (const named of values.modules === undefined ? DEFAULT_MODULES : values.modules.split(',').filter((m) => m !== '')) {
    const [engineName, module] = named.split(/:(.*)/s);
    const { holds, system: systemOf } = MODULE_SYSTEMS[engineName ?? ''] ?? fail(`--modules: "${named}" names no engine with an in-process tier (expected ${Object.keys(MODULE_SYSTEMS).join(' or ')}:<module>)`);
    const inProcess = systemOf(module!, 'in-process');
    const label = `${engineName} (your ${holds})`;
    const sum = byEngine.get(label) ?? { killPoints: 0, disagreements: [], inProcessMs: 0, processMs: 0 };
    byEngine.set(label, sum);
    for (const interleaving of await ordersOf(inProcess, inProcess.ownTask!)) {
      const r = await compareTiers(inProcess.ownTask!, inProcess, fromScratch(systemOf(module!, 'process')), { concurrency, interleaving });
      sum.killPoints += r.killPoints;
      sum.disagreements.push(...r.disagreements);
      sum.inProcessMs += r.inProcessMs;
      sum.processMs += r.processMs;
      console.error(`${module} (picks ${interleaving.join(',') || 'none'}): ${r.killPoints} kill points, ${r.disagreements.length} disagreements, ${(r.inProcessMs / 1000).toFixed(1)} s in process, ${(r.processMs / 1000).toFixed(1)} s by SIGKILL`);
    }
  }
  let disagreements = 0;
  for (const [engine, s] of byEngine) {
    console.log(`in-process vs process, ${engine}: ${s.killPoints} kill points, ${s.disagreements.length} disagreements, ${(s.processMs / s.inProcessMs).toFixed(1)}x faster (${(s.inProcessMs / 1000).toFixed(1)} s in process, ${(s.processMs / 1000).toFixed(1)} s by SIGKILL, ${concurrency} at a time)`);
    for (const d of s.disagreements) console.log(`  ${d}`);
    disagreements += s.disagreements.length;
  }
  process.exitCode = disagreements === 0 ? 0 : 1;
}

await main();
