// How fast a process engine kills and resumes, against the floor every process life pays: starting
// an empty `node`. Measured in one run, so the ratio holds on a machine whose speed drifts.
//
//   npx tsx bench/engine-speed.ts [--engine langgraph] [--strategy react/sync] [--scenario T01] [--runs 12] [--tier process|in-process]
//   npx tsx bench/engine-speed.ts --engine langgraph --strategy 'src/agent.ts --input input.json'   (a user's own graph)
//                                 [--target-each-s 1] [--target-sweep-min 5] [--task-by-equivalence]
// A target, when given, is printed beside the figure it is about, met or missed, from this run. With
// --target-sweep-min, a system explored by equivalence runs the whole single-kill sweep of the 14
// tasks, timed (minutes), since its speed depends on each task's distinct states. With
// --task-by-equivalence, the one task's every single kill point is explored by equivalence and its
// rate printed beside the from-scratch rate of this run (a whole sweep of a slow engine takes long).
//
// A kill-and-resume here is one schedule of one kill (the killed life and its recovery: two
// processes), at kill points spread over the run, two at a time as the sweeps run them (each:
// the rate's time per run times two), then every other one of them one at a time (each: its time).

import { emptyNodeStartMs } from './floor.js';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { engineNamed } from '../src/harness/registry.js';
import { lanternScenario, lanternScenarios } from '../src/model/load.js';
import { inPool } from '../src/harness/process/pool.js';
import { explore } from '../src/harness/search/explore.js';
import { runSchedule } from '../src/harness/session.js';

const { values } = parseArgs({ options: { engine: { type: 'string' }, strategy: { type: 'string' }, scenario: { type: 'string' }, runs: { type: 'string' }, 'target-each-s': { type: 'string' }, 'target-sweep-min': { type: 'string' }, 'task-by-equivalence': { type: 'boolean' }, tier: { type: 'string' } } });
const targetEachS = values['target-each-s'] === undefined ? null : Number(values['target-each-s']);
const targetSweepMin = values['target-sweep-min'] === undefined ? null : Number(values['target-sweep-min']);
const engine = engineNamed(values.engine ?? 'langgraph');
// This bench is about process lives: a real engine that also runs in process is asked for its processes (bench/in-process.ts times the other tier).
const tier = values.tier === 'in-process' ? 'in-process' : 'process';
const system = engine?.system(values.strategy ?? 'react/sync', (engine.tiers ?? []).includes(tier) ? { tier } : {});
if (system === undefined) {
  console.error(`engine-speed: no system "${values.strategy}" in engine "${values.engine}"`);
  process.exit(2);
}
// A user's own module runs its own task; a bundled system, one of the scenarios.
const scenario = system.ownTask ?? lanternScenario(values.scenario ?? 'T01');
const runs = Number(values.runs ?? 12);
const concurrency = Math.min(2, availableParallelism());


const floor = emptyNodeStartMs();
// The runs from scratch share one session of the scenario, as an exploration's do.
const session = system.open(scenario);
const hasLives = session.lives !== undefined;
let baseline, seconds, aloneS;
try {
  baseline = await session.run({ kills: [], interleaving: [] }); // also builds the child once
  const events = baseline.lives[0]!.events.length;
  const points = Array.from({ length: runs }, (_, i) => Math.floor(((i + 0.5) * events) / runs));
  const started = performance.now();
  await inPool(points, concurrency, async (k) => session.run({ kills: [k], interleaving: [] }));
  seconds = (performance.now() - started) / 1000;
  // The same kill-and-resume with nothing beside it: how long one takes on this machine, where
  // two at a time share its cores (the rate above is what a sweep gets).
  const alone = points.filter((_, i) => i % 2 === 0);
  const aloneStarted = performance.now();
  for (const k of alone) await session.run({ kills: [k], interleaving: [] });
  aloneS = (performance.now() - aloneStarted) / 1000 / alone.length;
} finally {
  await session.close();
}
const events = baseline.lives[0]!.events.length;
const perSecond = runs / seconds;
// The floor for the same work: two empty process starts per kill-and-resume, side by side as the runs were.
const floorPerSecond = (concurrency * 1000) / (2 * floor);
const eachS = (seconds / runs) * concurrency;
const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
console.log(`${system.engine} ${system.name} on ${scenario.id} (${events} events): ${perSecond.toFixed(2)} kill-and-resume runs/s (${eachS.toFixed(2)} s each, ${concurrency} at a time; ${aloneS.toFixed(2)} s each, one at a time)` +
  (targetEachS === null ? '' : `; target under ${targetEachS} s each: ${verdict(eachS < targetEachS)} ${concurrency} at a time, ${verdict(aloneS < targetEachS)} one at a time`));
console.log(`  floor: an empty node process starts in ${floor.toFixed(0)} ms, ${floorPerSecond.toFixed(1)} kill-and-resume runs/s if a life cost only that: the engine runs at ${((perSecond / floorPerSecond) * 100).toFixed(1)}% of it`);
// The work of a full single-kill sweep, counted from the 14 tasks' own runs never killed.
const baselines = await inPool(lanternScenarios(), concurrency, async (s) => runSchedule(system, s, { kills: [], interleaving: [] }));
const schedules = baselines.reduce((n, b) => n + b.lives[0]!.events.length + 1, 0);
const sweepMin = schedules / perSecond / 60;
const byEquivalence = hasLives && targetSweepMin !== null;
console.log(`  every single kill point of the 14 Lantern tasks: ${schedules} schedules, about ${sweepMin.toFixed(1)} min at this rate, each run from scratch` +
  (targetSweepMin === null || byEquivalence ? '' : `; target under ${targetSweepMin} min: ${verdict(sweepMin < targetSweepMin)}`));
if (byEquivalence) {
  // The sweep itself, as `npm run langgraph` runs it: by equivalence (a child killed at every kill
  // point, one recovery per distinct state of the real files), timed from end to end.
  const sweepStart = performance.now();
  let covered = 0;
  let lives = 0;
  let killed = 0;
  for (const s of lanternScenarios()) {
    const e = await explore(s, system, { kills: 1, interleavingBound: 1, seed: 1 }, { concurrency });
    covered += e.schedulesExplored;
    lives += e.reduction?.livesRun ?? 0;
    killed += e.reduction?.childrenKilled ?? 0;
  }
  const measuredMin = (performance.now() - sweepStart) / 60_000;
  console.log(`  the same sweep by equivalence, measured: ${covered} schedules judged in ${measuredMin.toFixed(1)} min (${killed} children killed, ${lives} lives run to their end, against ${2 * covered} processes from scratch); ` +
    `${(covered / (measuredMin * 60)).toFixed(2)} schedules/s, ${(covered / (measuredMin * 60) / perSecond).toFixed(2)}x the from-scratch rate; target under ${targetSweepMin} min: ${verdict(measuredMin < targetSweepMin)}`);
}
if (values['task-by-equivalence'] && hasLives) {
  const taskStart = performance.now();
  const e = await explore(scenario, system, { kills: 1, interleavingBound: 1, seed: 1 }, { concurrency });
  const taskS = (performance.now() - taskStart) / 1000;
  const r = e.reduction!;
  console.log(`  every single kill point of ${scenario.id} by equivalence, measured: ${e.schedulesExplored} schedules judged in ${taskS.toFixed(1)} s (${r.childrenKilled ?? 0} children killed, ${r.livesRun} lives run to their end, against ${r.livesUnreduced} processes from scratch); ` +
    `${(e.schedulesExplored / taskS).toFixed(2)} schedules/s, ${(e.schedulesExplored / taskS / perSecond).toFixed(2)}x the from-scratch rate`);
}
