// Real engines killed in process, timed against the same engines killed by SIGKILL, in one run
// (these machines drift 2x from day to day: only ratios measured together mean anything):
//   - a kill-and-resume (one schedule of one kill: the killed life and its recovery), two at a time
//     in each tier as the sweeps run them (in process: on two threads of lives); the ratio;
//   - LangGraph react/sync, every single kill point of the 14 tasks, in process;
//   - Dana's task with every schedule of two kills; a seeded sample of three-kill schedules;
//   - a user's graph (the support agent) with every schedule of two kills, and a whole check of it
//     in each tier (as of a user's DBOS workflow and Vercel workflow below); a user's graph that
//     waits for approval (the refund approval, answered from --resume) with every schedule of two kills;
//   - the heap before and after many in-process lives in this one process (abandoned lives must
//     leave nothing behind), run on killpoint's own thread so that the heap measured is theirs;
//   - DBOS (pglite/workflow+keys) the same way: a kill-and-resume from scratch and each kill point
//     of a check in both tiers, and the heap over many in-process DBOS lives (one DBOS per
//     process: its lives run one at a time, launched and shut down each);
//   - Vercel Workflow (durable-agent+keys) the same way, a kill-and-resume from scratch and each
//     kill point of a check in both tiers (in process: on threads of lives, a thread given up
//     after each killed life; --no-vercel leaves it out), and a whole check of a user's workflow
//     (the keyed test workflow) in each tier.
// Each target is printed beside its figure, met or missed.
//
//   npx tsx --expose-gc bench/in-process.ts [--lives 10000] [--points 8] [--dbos-lives 1000] [--no-vercel]

import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { stopBackends } from '../src/harness/engines/dbos/backend.js';
import { dbosSystem } from '../src/harness/engines/dbos/engine.js';
import { dbosModuleSpec, dbosModuleSystem } from '../src/harness/engines/dbos/module/system.js';
import type { SystemUnderTest } from '../src/harness/engine.js';
import { langGraphSystem } from '../src/harness/engines/langgraph/engine.js';
import { vercelWorkflowSystem } from '../src/harness/engines/vercel-workflow/engine.js';
import { vercelModuleSpec, vercelModuleSystem } from '../src/harness/engines/vercel-workflow/module/system.js';
import { langGraphModuleSpec, langGraphModuleSystem } from '../src/harness/engines/langgraph/module/system.js';
import { LIFE_THREADS_VARIABLE } from '../src/harness/in-process/life-threads.js';
import { inPool } from '../src/harness/process/pool.js';
import { explore } from '../src/harness/search/explore.js';
import { runSchedule } from '../src/harness/session.js';
import { lanternScenario, lanternScenarios } from '../src/model/load.js';
import seedrandom from 'seedrandom';
import { seconds, target, timed } from './timing.js';

const { values } = parseArgs({ options: { lives: { type: 'string' }, points: { type: 'string' }, 'dbos-lives': { type: 'string' }, 'no-vercel': { type: 'boolean' } } });
const LIVES = Number(values.lives ?? 10_000);
const DBOS_LIVES = Number(values['dbos-lives'] ?? 1_000);
const POINTS = Number(values.points ?? 8);
const dana = lanternScenario('T01');
const inProcess = langGraphSystem('react/sync')!;
const processes = langGraphSystem('react/sync', { tier: 'process' })!;
const NONE = { kills: [], interleaving: [] };

// Warm both tiers first (the bundles built, LangChain loaded on each thread of lives, a kill and a
// recovery run there once): a sweep pays that once, and a process pays it in every life.
const concurrency = Math.min(2, availableParallelism());
const [baseline] = await Promise.all(Array.from({ length: concurrency }, () => runSchedule(inProcess, dana, NONE)));
const events = baseline!.lives[0]!.events.length;
await Promise.all(Array.from({ length: concurrency }, () => runSchedule(inProcess, dana, { kills: [Math.floor(events / 2)], interleaving: [] })));
await runSchedule(processes, dana, NONE);
const points = Array.from({ length: POINTS }, (_, i) => Math.floor(((i + 0.5) * events) / POINTS));

/**
 * A kill-and-resume timed in both tiers in this one run: each schedule of one kill from scratch at
 * `points`, then every kill point of T01 as a check runs it (by equivalence, each tier its own
 * way: processes a child killed at each kill point; in process, for LangGraph, the kill points cut
 * from one repeat of the life), one recovery per distinct state, every kill point judged.
 */
async function bothTiers(label: string, inSystem: typeof inProcess, processSystem: typeof inProcess, points: number[], events: number, inProcessHow: string): Promise<void> {
  const inProcessRun = await timed(() => inPool(points, concurrency, async (k) => runSchedule(inSystem, dana, { kills: [k], interleaving: [] })));
  const processRun = await timed(() => inPool(points, concurrency, async (k) => runSchedule(processSystem, dana, { kills: [k], interleaving: [] })));
  const eachIn = inProcessRun.ms / points.length;
  const eachProcess = processRun.ms / points.length;
  console.log(`kill-and-resume, ${label} on T01 (${points.length} kill points spread over ${events} events):`);
  console.log(`  each schedule from scratch (its killed life, then its recovery): in process, ${inProcessHow}: ${eachIn.toFixed(0)} ms each; processes, ${concurrency} at a time: ${eachProcess.toFixed(0)} ms each; in process ${(eachProcess / eachIn).toFixed(1)}x faster ${target(eachProcess / eachIn >= 20, 'at least 20x')}`);
  const sweepIn = await timed(async () => explore(dana, inSystem, { kills: 1, interleavingBound: 1, seed: 1 }, { concurrency }));
  const sweepProcess = await timed(async () => explore(dana, processSystem, { kills: 1, interleavingBound: 1, seed: 1 }, { concurrency }));
  const perPointIn = sweepIn.ms / sweepIn.value.schedulesExplored;
  const perPointProcess = sweepProcess.ms / sweepProcess.value.schedulesExplored;
  console.log(`  each kill point of a check (every one of T01's ${sweepIn.value.schedulesExplored}, by equivalence): in process, ${inProcessHow}, ${perPointIn.toFixed(1)} ms each (${seconds(sweepIn.ms)}); processes, ${concurrency} at a time: ${perPointProcess.toFixed(0)} ms each (${seconds(sweepProcess.ms)}); in process ${(perPointProcess / perPointIn).toFixed(1)}x faster ${target(perPointProcess / perPointIn >= 20, 'at least 20x')}`);
}
/**
 * A whole check of a user's module (every single kill point, in every order of its parallel
 * calls, by equivalence), in each tier: what `killpoint check --<engine> <module>` costs.
 */
async function wholeCheckBothTiers(label: string, systemOf: (tier: 'in-process' | 'process') => SystemUnderTest, inProcessHow: string): Promise<void> {
  const [ownIn, ownProcesses] = [systemOf('in-process'), systemOf('process')];
  // Warmed as above: the module bundled and loaded on as many threads as the check runs lives on.
  await Promise.all(Array.from({ length: concurrency }, () => runSchedule(ownIn, ownIn.ownTask!, NONE)));
  await runSchedule(ownProcesses, ownProcesses.ownTask!, NONE);
  const checkIn = await timed(async () => explore(ownIn.ownTask!, ownIn, { kills: 1, interleavingBound: 32, seed: 1 }, { concurrency }));
  const checkProcesses = await timed(async () => explore(ownProcesses.ownTask!, ownProcesses, { kills: 1, interleavingBound: 32, seed: 1 }, { concurrency }));
  console.log(`${label}, a whole check by equivalence (${checkIn.value.schedulesExplored} schedules): in process, ${inProcessHow}, ${seconds(checkIn.ms)}; processes, ${concurrency} at a time: ${seconds(checkProcesses.ms)}; in process ${(checkProcesses.ms / checkIn.ms).toFixed(1)}x faster ${target(checkProcesses.ms / checkIn.ms >= 20, 'at least 20x')}`);
}
await bothTiers('LangGraph react/sync', inProcess, processes, points, events, `${concurrency} at a time`);

const sweep = await timed(async () => {
  let killPoints = 0;
  for (const scenario of lanternScenarios()) killPoints += (await explore(scenario, inProcess, { kills: 1, interleavingBound: 1, seed: 1 }, { concurrency })).schedulesExplored;
  return killPoints;
});
console.log(`react/sync, every single kill point of the 14 tasks in process: ${sweep.value} kill points in ${seconds(sweep.ms)} ${target(sweep.ms <= 15_000, 'within 15 s')}`);

const twoKills = await timed(async () => explore(dana, inProcess, { kills: 2, interleavingBound: 1, seed: 1 }, { concurrency }));
console.log(`Dana's task, every schedule of up to two kills in process: ${twoKills.value.schedulesExplored} schedules in ${seconds(twoKills.ms)} ${target(twoKills.ms <= 30_000, 'within 30 s')}`);

// Three kills: a seeded sample of schedules (the first kill anywhere, each next one in the life it starts).
const random = seedrandom('three kills');
const schedules = Array.from({ length: 100 }, () => [0, 1, 2].map(() => Math.floor(random() * 30)));
const threeKills = await timed(() => inPool(schedules, concurrency, async (kills) => runSchedule(inProcess, dana, { kills, interleaving: [] })));
console.log(`Dana's task, 100 generated schedules of three kills in process: ${seconds(threeKills.ms)} (${(threeKills.ms / 100).toFixed(0)} ms each)`);

const ownGraph = (tier: 'in-process' | 'process') => langGraphModuleSystem(langGraphModuleSpec({ module: 'examples/support-agent-langgraph/src/agent-keyed.ts', inputFile: 'examples/support-agent-langgraph/input.json' }), tier);
const own = ownGraph('in-process');
await runSchedule(own, own.ownTask!, NONE);
const ownTwo = await timed(async () => explore(own.ownTask!, own, { kills: 2, interleavingBound: 32, seed: 1 }, { concurrency }));
console.log(`a user's graph (support agent, keyed), every schedule of up to two kills in process: ${ownTwo.value.schedulesExplored} schedules over ${ownTwo.value.interleavings.explored} interleavings in ${seconds(ownTwo.ms)} ${target(ownTwo.ms <= 30_000, 'within 30 s')}`);

await wholeCheckBothTiers("a user's graph (support agent, keyed)", ownGraph, `${concurrency} at a time on threads`);

// A graph that waits for a person (interrupt()), answered from --resume: its waits add two kill points each.
const approval = langGraphModuleSystem(langGraphModuleSpec({ module: 'examples/refund-approval-langgraph/src/agent-keyed.ts', inputFile: 'examples/refund-approval-langgraph/input.json', resumeFile: 'examples/refund-approval-langgraph/resume.json' }), 'in-process');
await runSchedule(approval, approval.ownTask!, NONE);
const approvalTwo = await timed(async () => explore(approval.ownTask!, approval, { kills: 2, interleavingBound: 32, seed: 1 }, { concurrency }));
console.log(`a user's graph that waits for approval (refund approval, keyed), every schedule of up to two kills in process: ${approvalTwo.value.schedulesExplored} schedules in ${seconds(approvalTwo.ms)} ${target(approvalTwo.ms <= 30_000, 'within 30 s')}`);

// On killpoint's own thread: a thread's heap is not this one, and the point is what lives leave behind.
process.env[LIFE_THREADS_VARIABLE] = '0';
await runSchedule(inProcess, dana, NONE); // LangChain loaded on this thread before the heap is first measured
const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = () => {
  gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

/**
 * Lives run one schedule of one kill after another (every kill point in turn), and the heap and
 * open handles before and after. `thenStop`: a backend this process serves, which holds data of its
 * own that grows with every run (not anything a life left), stopped before each measure of the
 * heap; the heap with it still running after the lives is printed too.
 */
async function heapOver(system: typeof inProcess, lives: number, killPoints: number, thenStop?: () => Promise<void>): Promise<string> {
  await thenStop?.();
  const before = heapMb();
  const handlesBefore = process.getActiveResourcesInfo().length;
  const many = await timed(async () => {
    let ran = 0;
    for (let i = 0; ran < lives; i++) ran += (await runSchedule(system, dana, { kills: [i % killPoints], interleaving: [] })).lives.length;
    return ran;
  });
  const withBackend = thenStop === undefined ? '' : `, ${heapMb().toFixed(0)} MB with the backend still running (its database holds every run's rows)`;
  await thenStop?.();
  const after = heapMb();
  return `${many.value} in-process lives in ${seconds(many.ms)}: heap ${before.toFixed(0)} MB before, ${after.toFixed(0)} MB after${thenStop === undefined ? '' : ' once the backend is stopped'}${withBackend}${gc === undefined ? ' (run with --expose-gc for a collected heap)' : ''}; open handles ${handlesBefore} before, ${process.getActiveResourcesInfo().length} after ${target(after - before < 50, 'flat, within 50 MB')}`;
}
console.log(await heapOver(inProcess, LIVES, events));

const dbosIn = dbosSystem('pglite/workflow+keys', { tier: 'in-process' })!;
const dbosProcesses = dbosSystem('pglite/workflow+keys', { tier: 'process' })!;
const dbosEvents = (await runSchedule(dbosIn, dana, NONE)).lives[0]!.events.length;
await runSchedule(dbosProcesses, dana, NONE);
const dbosPoints = Array.from({ length: POINTS }, (_, i) => Math.floor(((i + 0.5) * dbosEvents) / POINTS));
await bothTiers('DBOS pglite/workflow+keys', dbosIn, dbosProcesses, dbosPoints, dbosEvents, 'one at a time (one DBOS per process)');
console.log(`DBOS: ${await heapOver(dbosIn, DBOS_LIVES, dbosEvents, stopBackends)}`);
const ownWorkflow = (tier: 'in-process' | 'process') => dbosModuleSystem(dbosModuleSpec({ module: 'examples/support-agent-dbos/src/workflow-keyed.ts', inputFile: 'examples/support-agent-dbos/input.json' }), tier);
await wholeCheckBothTiers("a user's DBOS workflow (support agent, keyed)", ownWorkflow, 'one at a time (one DBOS per process)');

if (!values['no-vercel']) {
  // Its lives on threads whatever KILLPOINT_LIFE_THREADS says (the SDK's module state is never killpoint's own).
  delete process.env[LIFE_THREADS_VARIABLE];
  const vercelIn = vercelWorkflowSystem('durable-agent+keys', { tier: 'in-process' })!;
  const vercelProcesses = vercelWorkflowSystem('durable-agent+keys', { tier: 'process' })!;
  const vercelEvents = (await runSchedule(vercelIn, dana, NONE)).lives[0]!.events.length;
  await runSchedule(vercelProcesses, dana, NONE);
  const vercelPoints = Array.from({ length: POINTS }, (_, i) => Math.floor(((i + 0.5) * vercelEvents) / POINTS));
  await bothTiers('Vercel Workflow durable-agent+keys', vercelIn, vercelProcesses, vercelPoints, vercelEvents, `${concurrency} at a time on threads, each killed life's thread given up`);

  const ownVercel = (tier: 'in-process' | 'process') => vercelModuleSystem(vercelModuleSpec({ module: 'test/fixtures/vercel-modules/workflows/keyed.ts', inputFile: 'test/fixtures/vercel-modules/input.json' }), tier);
  await wholeCheckBothTiers("a user's Vercel workflow (the keyed test workflow)", ownVercel, 'on threads');
}
