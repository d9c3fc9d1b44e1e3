// An engine's findings over the bundled Lantern tasks: every single kill point of every task under
// each of the engine's systems, explored and judged like `killpoint check`, summed per system into
// one table (the findings tables in docs/langgraph.md and docs/dbos.md come from here). Every figure is counted from the runs.
//
//   npx tsx bench/engine-sweep.ts --engine langgraph                    every system (slow: minutes each)
//   npx tsx bench/engine-sweep.ts --engine langgraph --strategies react/sync,react/sync+keys --scenarios T01,T03
//   options: --concurrency N (runs side by side), --json FILE (the table and every exploration as JSON),
//            --shard i/n (this machine's share of the tasks, split as vitest --shard splits files)

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

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { engine: { type: 'string' }, strategies: { type: 'string' }, scenarios: { type: 'string' }, concurrency: { type: 'string' }, json: { type: 'string' }, shard: { type: 'string' } } });
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
}

await main();
