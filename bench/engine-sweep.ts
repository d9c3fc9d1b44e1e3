// An engine's findings over the bundled Lantern tasks: every single kill point of every task under
// each of the engine's systems, explored and judged like `killpoint check`, summed per system into
// one table (the findings tables in docs/langgraph.md and docs/dbos.md come from here). Every figure is counted from the runs.
//
//   npx tsx bench/engine-sweep.ts --engine langgraph                    every system (slow: minutes each)
//   npx tsx bench/engine-sweep.ts --engine langgraph --strategies react/sync,react/sync+keys --scenarios T01,T03
//   options: --concurrency N (runs side by side), --json FILE (the table and every exploration as JSON),
//            --shard i/n (this machine's share of the tasks, split as vitest --shard splits files)
//
// Two more checks of every single kill point, for a system explored by equivalence (the full sweeps
// that test/langgraph-engine.test.ts and test/dbos-engine.test.ts take samples of; exit 1 on any
// disagreement, each printed with its task, system and kill point):
//   --from-scratch   each kill point also run from scratch (a killed life and its recovery, two
//                    processes), its failed checks and verdict compared with the exploration's
//   --model NAME     each kill point's verdict compared with killpoint's scripted strategy NAME at
//                    the same moment (the kill point of the same identity), where it has one (DBOS
//                    names two moments of its own: its model is checked by npm run dbos)
//   npm run langgraph -- --strategies react/sync --scenarios T01 --from-scratch --model journal

import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { CHECK_LABELS, type CheckName } from '../src/harness/check/checks.js';
import { engineNamed, engineNames } from '../src/harness/registry.js';
import { readdirSync } from 'node:fs';
import { relative, join } from 'node:path';
import { LANTERN_DIR, lanternScenarios, PROJECT_ROOT } from '../src/model/load.js';
import { explore, type Exploration } from '../src/harness/search/explore.js';
import { explorationJson } from '../src/harness/report/text.js';
import { parseShard, shardOf } from '../src/harness/cli/options.js';
import { startProgress } from '../src/harness/cli/progress.js';
import { failedChecks } from '../src/harness/check/checks.js';
import { eventIdentities } from '../src/harness/check/kill-points.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { judge, type Verdict } from '../src/harness/check/verdict.js';
import type { SystemUnderTest } from '../src/harness/engine.js';
import type { Scenario } from '../src/model/scenario.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { SCRIPTED_SYSTEM_NAMES, type AnyStrategyName } from '../src/harness/engines/scripted/strategies.js';
import { inPool } from '../src/harness/process/pool.js';
import { exploreByEquivalence } from '../src/harness/search/equivalence.js';
import { runSchedule } from '../src/harness/session.js';

const COLUMNS: CheckName[] = ['done-twice', 'lost-write', 'refused-repeat', 'different-write', 'different-answer', 'invalid-conversation', 'answer-twice'];

/** The bundled scenario file of a task, as a replay command names it. */
function lanternFile(id: string): string {
  const name = readdirSync(LANTERN_DIR).find((n) => n.startsWith(`${id}-`));
  return relative(PROJECT_ROOT, join(LANTERN_DIR, name ?? `${id}.json`));
}

function fail(message: string): never {
  console.error(`engine-sweep: ${message}`);
  process.exit(2);
}

/** The parts of a verdict the engine's tests compare across systems and explorers. */
const comparable = (v: Verdict) => ({ doneTwice: v.doneTwice.map(String), lost: v.lostWrites.map(String), refused: v.refused, sameAnswer: v.sameAnswer, modelCallsRedone: v.modelCallsRedone, answers: v.answersDelivered });

/**
 * Every single kill point of one task under one system, explored by equivalence, each verdict
 * checked against its run from scratch (fromScratch) and against a scripted strategy at the same
 * moment (model): one line per disagreement.
 */
async function killPointChecks(scenario: Scenario, system: SystemUnderTest, concurrency: number, fromScratch: boolean, model: AnyStrategyName | null): Promise<{ killPoints: number; modelMoments: number; disagreements: string[] }> {
  const NONE = { kills: [], interleaving: [] };
  const baseline = await runSchedule(system, scenario, NONE);
  const ids = eventIdentities(baseline.lives[0]!.events);
  const identity = (k: number) => (k < 0 ? 'start' : ids[k]!);
  const reduced = new Map<number, { verdict: Verdict; failed: readonly string[] }>();
  await exploreByEquivalence(scenario, system, [{ picks: [], baseline }], 1, (c) => reduced.set(c.kills[0]!, { verdict: c.verdict(), failed: c.failed }), { concurrency });
  const where = (k: number) => `${scenario.id} ${system.name} kill point ${k} (${identity(k)})`;
  const disagreements: string[] = [];
  let modelMoments = 0;
  const points = Array.from({ length: ids.length + 1 }, (_, i) => i - 1);
  if (reduced.size !== points.length) disagreements.push(`${scenario.id} ${system.name}: the exploration covered ${reduced.size} of ${points.length} kill points`);
  if (fromScratch) {
    const runs = await inPool(points, concurrency, async (k) => {
      const outcome = await runSchedule(system, scenario, { kills: [k], interleaving: [] });
      const verdict = judge(scenario, outcome, baseline);
      return { k, verdict, failed: failedChecks({ scenario, outcome, verdict }) };
    });
    for (const r of runs) {
      const e = reduced.get(r.k);
      const a = JSON.stringify({ failed: r.failed, ...comparable(r.verdict) });
      const b = JSON.stringify(e === undefined ? null : { failed: e.failed, ...comparable(e.verdict) });
      if (a !== b) disagreements.push(`${where(r.k)}: from scratch ${a}, by equivalence ${b}`);
    }
  }
  if (model !== null) {
    const m = scripted(model);
    const modelBaseline = runSchedule(m, scenario, NONE) as RunOutcome;
    const modelIds = eventIdentities(modelBaseline.lives[0]!.events);
    for (const k of points) {
      const mk = k < 0 ? -1 : modelIds.indexOf(identity(k));
      const e = reduced.get(k);
      if (mk === -1 && k >= 0) continue; // a moment the model does not have
      if (e === undefined) continue;
      const j = judge(scenario, runSchedule(m, scenario, { kills: [mk], interleaving: [] }) as RunOutcome, modelBaseline);
      modelMoments++;
      const a = JSON.stringify(comparable(e.verdict));
      const b = JSON.stringify(comparable(j));
      if (a !== b) disagreements.push(`${where(k)}: ${system.engine} ${a}, scripted ${model} ${b}`);
    }
  }
  return { killPoints: points.length, modelMoments, disagreements };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { engine: { type: 'string' }, strategies: { type: 'string' }, scenarios: { type: 'string' }, concurrency: { type: 'string' }, json: { type: 'string' }, shard: { type: 'string' }, 'from-scratch': { type: 'boolean' }, model: { type: 'string' } } });
  const engine = engineNamed(values.engine ?? '') ?? fail(`--engine: expected one of ${engineNames().join(', ')}, got "${values.engine ?? ''}"`);
  const names = values.strategies?.split(',') ?? [...engine.defaultSystems];
  const systems = names.map((n) => engine.system(n) ?? fail(`--strategies: expected names among ${engine.systemNames.join(', ')}, got "${n}"`));
  const all = lanternScenarios();
  const chosen = values.scenarios === undefined ? all : values.scenarios.split(',').map((id) => all.find((s) => s.id === id) ?? fail(`--scenarios: no bundled scenario "${id}"`));
  let shard = null;
  try {
    shard = values.shard === undefined ? null : parseShard(values.shard, '--shard');
  } catch (error) {
    fail((error as Error).message);
  }
  const scenarios = shardOf(chosen, shard);
  if (shard !== null) console.log(`shard ${shard.index}/${shard.count}: ${scenarios.map((s) => s.id).join(', ') || 'no task'} of ${chosen.length} tasks`);
  const concurrency = values.concurrency === undefined ? availableParallelism() : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) fail(`--concurrency: expected a whole number >= 1, got "${values.concurrency}"`);
  const model = values.model === undefined ? null : ((SCRIPTED_SYSTEM_NAMES as readonly string[]).includes(values.model) ? (values.model as AnyStrategyName) : fail(`--model: expected one of ${SCRIPTED_SYSTEM_NAMES.join(', ')}, got "${values.model}"`));
  const fromScratch = values['from-scratch'] === true;

  const rows: Record<string, unknown>[] = [];
  const explorations: unknown[] = [];
  console.log(`| ${engine.name} system | tasks | kill points | ${COLUMNS.map((c) => CHECK_LABELS[c]).join(' | ')} | promises kept | seconds |`);
  console.log(`|---|---|---|${COLUMNS.map(() => '---').join('|')}|---|---|`);
  for (const system of systems) {
    const started = performance.now();
    const found: Exploration[] = [];
    const progress = startProgress(system.name, scenarios.length);
    for (const scenario of scenarios) {
      const e = await explore(scenario, system, { kills: 1, interleavingBound: 1, seed: 1 }, { concurrency });
      found.push(e);
      explorations.push(explorationJson(e, { kind: 'scenario-file', path: lanternFile(scenario.id) }));
      progress.tick(scenario.id);
    }
    progress.end();
    const seconds = (performance.now() - started) / 1000;
    const sum = (c: CheckName) => found.reduce((n, e) => n + e.failures[c], 0);
    const broken = found.filter((e) => e.brokenPromises.length > 0).map((e) => `${e.scenarioId}: ${e.brokenPromises.join(', ')}`);
    const row = { system: system.name, tasks: found.length, killPoints: found.reduce((n, e) => n + e.schedulesExplored, 0), ...Object.fromEntries(COLUMNS.map((c) => [c, sum(c)])), broken, seconds: Math.round(seconds) };
    rows.push(row);
    console.log(`| ${system.name} | ${row.tasks} | ${row.killPoints} | ${COLUMNS.map((c) => String(sum(c))).join(' | ')} | ${broken.length === 0 ? 'yes' : `no (${broken.join('; ')})`} | ${row.seconds} |`);
  }
  if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify({ engine: engine.name, rows, explorations }, null, 2)}\n`);

  if (!fromScratch && model === null) return;
  const checked = [fromScratch ? 'its run from scratch' : null, model !== null ? `the scripted ${model} (where it has the moment)` : null].filter((x) => x !== null).join(' and ');
  let killPoints = 0;
  let modelMoments = 0;
  const disagreements: string[] = [];
  for (const system of systems) {
    const progress = startProgress(`${system.name}: every kill point against ${checked}`, scenarios.length);
    for (const scenario of scenarios) {
      const r = await killPointChecks(scenario, system, concurrency, fromScratch, model);
      killPoints += r.killPoints;
      modelMoments += r.modelMoments;
      disagreements.push(...r.disagreements);
      progress.tick(scenario.id);
    }
    progress.end();
  }
  console.log('');
  console.log(disagreements.length === 0
    ? `every kill point's verdict by equivalence agrees with ${checked}: ${killPoints} kill points${model !== null ? `, ${modelMoments} of them moments the model has` : ''}`
    : `${disagreements.length} disagreement(s) over ${killPoints} kill points${model !== null ? ` (${modelMoments} moments the model has)` : ''}:\n${disagreements.map((d) => `  ${d}`).join('\n')}`);
  process.exitCode = disagreements.length === 0 ? 0 : 1;
}

await main();
