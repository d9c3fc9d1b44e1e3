// Real DBOS against killpoint's model of it, over the 14 Lantern tasks: every single kill point of
// every task under a DBOS system (a real workflow, each life a process killed with SIGKILL), judged
// like `killpoint check`, and compared verdict by verdict with the scripted strategy it is modelled
// by (`pglite/workflow` with `workflow`, `pglite/workflow+keys` with `workflow+keys`) at the same
// moment (src/harness/engines/dbos/differential.ts maps DBOS's two moments of its own). It prints:
//   - the findings table (docs/dbos.md's rows), one row per system, counted from the runs;
//   - the chapter's after-write row from real DBOS: killed right after each task's first commit,
//     how many writes were sent again, done twice, refused (by reason), different, same answer;
//   - every kill point where DBOS and the model disagree (exit 1 if there is one);
//   - with --by-equivalence, each task also explored by equivalence (a child killed at every kill
//     point, one recovery per distinct state), every kill point's verdict and failed checks checked
//     against its run from scratch, and no copied rows left in the database (exit 1 if not); with
//     --warm too, the exploration's lives are handed to processes started ahead of them (its runs
//     from scratch stay cold), as test/warm-children.test.ts does on a one-refund task.
//
//   npx tsx bench/dbos-differential.ts                                   (npm run dbos; about an hour on 2 cores)
//   npx tsx bench/dbos-differential.ts --systems pglite/workflow --scenarios T01,T03 --json out.json
//   npm run dbos -- --backend postgres --systems workflow --scenarios T01 --by-equivalence
//                                       (what test/dbos-engine.test.ts samples: Dana's task on Postgres)
//   options: --concurrency N (lives side by side, default 2), --backend pglite|postgres, --by-equivalence [--warm]

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CHECK_LABELS, failedChecks, type CheckName } from '../src/harness/check/checks.js';
import { eventIdentities, findKillPoint } from '../src/harness/check/kill-points.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { judge, type Verdict } from '../src/harness/check/verdict.js';
import { stopBackends } from '../src/harness/engines/dbos/backend.js';
import { scriptedMoment, verdictDifferences } from '../src/harness/engines/dbos/differential.js';
import { comparableVerdict } from '../src/harness/check/verdict-compare.js';
import { copiesInDatabase, dbosTier } from '../src/harness/engines/dbos/tier.js';
import { exploreByEquivalence } from '../src/harness/search/equivalence.js';
import { dbosConfigNamed } from '../src/harness/engines/dbos/config.js';
import { runDbos } from '../src/harness/engines/dbos/run.js';
import { processLives, processSession } from '../src/harness/process/process-lives.js';
import type { SystemUnderTest } from '../src/harness/engine.js';
import { dbosSystem } from '../src/harness/engines/dbos/engine.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { lanternScenarios } from '../src/model/load.js';
import type { Scenario } from '../src/model/scenario.js';
import { inPool } from '../src/harness/process/pool.js';
import { startProgress } from '../src/harness/cli/progress.js';
import { runSchedule } from '../src/harness/session.js';
import { AfterFirstWrite, brokenPromises, type JudgedKillPoint } from './differential-table.js';

/** With --warm: the lives handed to a process started ahead of them, over the whole run. */
let handedWarm = 0;

const COLUMNS: CheckName[] = ['done-twice', 'lost-write', 'refused-repeat', 'different-write', 'different-answer', 'invalid-conversation', 'answer-twice'];
const NONE = { kills: [], interleaving: [] };

function fail(message: string): never {
  console.error(`dbos-differential: ${message}`);
  process.exit(2);
}

interface KillPointResult extends JudgedKillPoint {
  /** With --by-equivalence: where the verdict by equivalence differs from this run's from scratch (empty: they agree). */
  byEquivalence: string[];
}

/** Every kill point of one task under one DBOS system, each judged and compared with the model. */
async function sweepTask(scenario: Scenario, dbosName: string, modelName: string, concurrency: number, byEquivalence: boolean, warm: boolean): Promise<KillPointResult[]> {
  const db = dbosSystem(dbosName)!;
  const baseline = await runSchedule(db, scenario, NONE);
  const events = baseline.lives[0]!.events;
  const ids = eventIdentities(events);
  const model = scripted(modelName);
  const modelBaseline = runSchedule(model, scenario, NONE) as RunOutcome;
  const modelEvents = modelBaseline.lives[0]!.events;
  const points = [-1, ...ids.map((_, k) => k)];
  const results = await inPool(points, concurrency, async (k) => {
    const outcome = await runSchedule(db, scenario, { kills: [k], interleaving: [] });
    const verdict = judge(scenario, outcome, baseline);
    const identity = k < 0 ? 'start' : ids[k]!;
    const moment = scriptedMoment(events, k);
    const mk = moment === 'start' ? -1 : findKillPoint(modelEvents, moment);
    const differences = mk === null
      ? [`the scripted ${modelName} has no moment ${moment}`]
      : verdictDifferences(verdict, judge(scenario, runSchedule(model, scenario, { kills: [mk], interleaving: [] }) as RunOutcome, modelBaseline)).map((d) => `scripted ${moment}: ${d}`);
    return { k, identity, verdict, failed: failedChecks({ scenario, outcome, verdict }), differences, byEquivalence: [] as string[] };
  });
  if (!byEquivalence) return results;
  const reduced = new Map<number, { verdict: Verdict; failed: readonly CheckName[] }>();
  let explored: SystemUnderTest = db;
  if (warm) {
    const config = dbosConfigNamed(dbosName)!;
    const livesOf = processLives(dbosTier(config, dbosName), { warm: true, onWarmFigures: (f) => (handedWarm += f.handedWarm) });
    explored = { ...db, open: (s) => processSession(s, (schedule) => runDbos(s, config, dbosName, schedule), livesOf) };
  }
  await exploreByEquivalence(scenario, explored, [{ picks: [], baseline }], 1, (c) => reduced.set(c.kills[0]!, { verdict: c.verdict(), failed: c.failed }), { concurrency });
  for (const r of results) {
    const e = reduced.get(r.k);
    const a = JSON.stringify({ failed: r.failed, ...comparableVerdict(r.verdict) });
    const b = JSON.stringify(e === undefined ? null : { failed: e.failed, ...comparableVerdict(e.verdict) });
    if (a !== b) r.byEquivalence.push(`from scratch ${a}, by equivalence ${b}`);
  }
  const copies = await copiesInDatabase(db.name.split('/')[0] as 'pglite' | 'postgres');
  if (copies !== 0) results[0]!.byEquivalence.push(`${copies} copied workflow(s) left in the database after the exploration`);
  return results;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { systems: { type: 'string' }, scenarios: { type: 'string' }, concurrency: { type: 'string' }, backend: { type: 'string' }, json: { type: 'string' }, 'by-equivalence': { type: 'boolean' }, warm: { type: 'boolean' } } });
  const byEquivalence = values['by-equivalence'] === true;
  const warm = values.warm === true;
  if (warm && !byEquivalence) fail('--warm: only with --by-equivalence (the runs from scratch start each life cold)');
  const backend = values.backend ?? 'pglite';
  if (backend !== 'pglite' && backend !== 'postgres') fail(`--backend: expected pglite or postgres, got "${backend}"`);
  const modes = values.systems?.split(',').map((s) => s.replace(/^(pglite|postgres)\//, '')) ?? ['workflow', 'workflow+keys'];
  for (const mode of modes) if (mode !== 'workflow' && mode !== 'workflow+keys') fail(`--systems: expected workflow or workflow+keys (optionally after pglite/ or postgres/), got "${mode}"`);
  const all = lanternScenarios();
  const scenarios = values.scenarios === undefined ? all : values.scenarios.split(',').map((id) => all.find((s) => s.id === id) ?? fail(`--scenarios: no bundled scenario "${id}"`));
  const concurrency = values.concurrency === undefined ? 2 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) fail(`--concurrency: expected a whole number >= 1, got "${values.concurrency}"`);

  const report: Record<string, unknown>[] = [];
  const tableLines = [`| dbos system | tasks | kill points | ${COLUMNS.map((c) => CHECK_LABELS[c]).join(' | ')} | promises kept | agrees with | disagreements | seconds |`, `|---|---|---|${COLUMNS.map(() => '---').join('|')}|---|---|---|---|`];
  const afterWriteLines: string[] = [];
  const disagreements: string[] = [];
  const equivalenceDisagreements: string[] = [];
  try {
    for (const mode of modes) {
      const name = `${backend}/${mode}`;
      const promised = dbosSystem(name)!.promised;
      const started = performance.now();
      const counts = Object.fromEntries(COLUMNS.map((c) => [c, 0])) as Record<CheckName, number>;
      const broken: string[] = [];
      const afterWrite = new AfterFirstWrite();
      let killPoints = 0;
      let disagreed = 0;
      const progress = startProgress(name, scenarios.length);
      for (const scenario of scenarios) {
        const results = await sweepTask(scenario, name, mode, concurrency, byEquivalence, warm);
        killPoints += results.length;
        for (const r of results) {
          for (const c of COLUMNS) if (r.failed.includes(c)) counts[c]++;
          for (const d of r.differences) disagreements.push(`${scenario.id} ${name} ${r.identity}: ${d}`);
          for (const d of r.byEquivalence) equivalenceDisagreements.push(`${scenario.id} ${name} ${r.identity}: ${d}`);
          if (r.differences.length > 0) disagreed++;
        }
        const brokenHere = brokenPromises(results, promised);
        if (brokenHere.length > 0) broken.push(`${scenario.id}: ${brokenHere.join(', ')}`);
        afterWrite.add(results);
        report.push({ system: name, scenario: scenario.id, killPoints: results.map((r) => ({ k: r.k, identity: r.identity, failed: r.failed, differences: r.differences, verdict: r.verdict })) });
        progress.tick(`${scenario.id}: ${results.length} kill points`);
      }
      progress.end();
      const seconds = Math.round((performance.now() - started) / 1000);
      tableLines.push(`| ${name} | ${scenarios.length} | ${killPoints} | ${COLUMNS.map((c) => String(counts[c])).join(' | ')} | ${broken.length === 0 ? 'yes' : `no (${broken.join('; ')})`} | scripted ${mode} | ${disagreed} | ${seconds} |`);
      afterWriteLines.push(afterWrite.line(name));
    }
  } finally {
    await stopBackends();
  }
  console.log(tableLines.join('\n'));
  console.log('');
  console.log(afterWriteLines.join('\n'));
  console.log('');
  console.log(disagreements.length === 0 ? 'DBOS and the scripted model agree at every kill point.' : `DBOS and the scripted model disagree at ${disagreements.length} kill point(s):\n${disagreements.map((d) => `  ${d}`).join('\n')}`);
  if (byEquivalence) {
    if (warm) console.log(`With warm children: ${handedWarm} lives handed to a process started ahead of them.`);
    console.log(equivalenceDisagreements.length === 0 ? 'By equivalence, every kill point has the verdict of its run from scratch.' : `By equivalence and from scratch, the verdicts differ at ${equivalenceDisagreements.length} kill point(s):\n${equivalenceDisagreements.map((d) => `  ${d}`).join('\n')}`);
  }
  if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify({ table: tableLines, afterWrite: afterWriteLines, disagreements, ...(byEquivalence ? { equivalenceDisagreements } : {}), tasks: report }, null, 2)}\n`);
  process.exitCode = disagreements.length + equivalenceDisagreements.length === 0 ? 0 : 1;
}

await main();
