// Real Restate against killpoint's model of it, over the 14 Lantern tasks: every single kill point
// of every task under each Restate system (a real restate-server, the agent a Restate service,
// each life the service's process killed with SIGKILL), judged like `killpoint check`; for the
// systems the scripted engine models (`service` and `ai-middleware` by `workflow`, their `+keys` by `workflow+keys`),
// each verdict compared with the model's at the same moment (src/harness/engines/restate/differential.ts
// maps Restate's two moments of its own). One session, so one server, per task and system. It prints:
//   - the findings table (docs/restate.md's rows), one row per system, counted from the runs;
//   - killed right after each task's first commit: writes sent again, done twice, refused (by
//     reason), different, same answer;
//   - the measured figures: each server's start, a kill-and-resume run's seconds;
//   - every kill point where Restate and the model disagree (exit 1 if there is one).
//
//   npx tsx bench/restate.ts                                        (npm run restate; about an hour on 2 cores)
//   npx tsx bench/restate.ts --systems service --scenarios T01,T03 --json out.json
//   options: --concurrency N (runs side by side, default 2)

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CHECK_LABELS, failedChecks, type CheckName } from '../src/harness/check/checks.js';
import { eventIdentities, findKillPoint } from '../src/harness/check/kill-points.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { judge } from '../src/harness/check/verdict.js';
import { MODELLED_BY, scriptedMoment, verdictDifferences } from '../src/harness/engines/restate/differential.js';
import { restateSystem } from '../src/harness/engines/restate/engine.js';
import { RESTATE_MODES } from '../src/harness/engines/restate/config.js';
import { watchServerStarts } from '../src/harness/engines/restate/session.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { lanternScenarios } from '../src/model/load.js';
import type { Scenario } from '../src/model/scenario.js';
import { inPool } from '../src/harness/process/pool.js';
import { startProgress } from '../src/harness/cli/progress.js';
import { runSchedule, withSession } from '../src/harness/session.js';
import { AfterFirstWrite, brokenPromises, type JudgedKillPoint } from './differential-table.js';

const COLUMNS: CheckName[] = ['done-twice', 'lost-write', 'refused-repeat', 'different-write', 'different-answer', 'invalid-conversation', 'answer-twice'];
const NONE = { kills: [], interleaving: [] };

function fail(message: string): never {
  console.error(`restate bench: ${message}`);
  process.exit(2);
}

interface KillPointResult extends JudgedKillPoint {
  /** Seconds the run (a killed life and its recovery) took. */
  seconds: number;
  /** Empty when the killed life repeated the baseline's events up to its kill point; else what it did instead. */
  notRepeated: string;
}

/** Every kill point of one task under one Restate system, in one session (one server), each judged and compared with the model. */
async function sweepTask(scenario: Scenario, name: string, concurrency: number): Promise<KillPointResult[]> {
  const system = restateSystem(name)!;
  const modelName = MODELLED_BY[name];
  const model = modelName === undefined ? null : scripted(modelName);
  const modelBaseline = model === null ? null : (runSchedule(model, scenario, NONE) as RunOutcome);
  return withSession(system, scenario, async (session) => {
    const baseline = await session.run(NONE);
    const events = baseline.lives[0]!.events;
    const ids = eventIdentities(events);
    const points = [-1, ...ids.map((_, k) => k)];
    return inPool(points, concurrency, async (k) => {
      // real clock: the bench reports how long a kill-and-resume run takes.
      const started = performance.now();
      const outcome = await session.run({ kills: [k], interleaving: [] });
      const seconds = (performance.now() - started) / 1000;
      const verdict = judge(scenario, outcome, baseline);
      const identity = k < 0 ? 'start' : ids[k]!;
      // The killed life must be the baseline's, event for event, up to its kill point.
      const killed = eventIdentities(outcome.lives[0]!.events).join(' ');
      const notRepeated = killed === ids.slice(0, k + 1).join(' ') ? '' : `killed life's events: ${killed}`;
      let differences: string[] = [];
      if (model !== null && modelBaseline !== null) {
        const moment = scriptedMoment(events, k);
        const mk = moment === 'start' ? -1 : findKillPoint(modelBaseline.lives[0]!.events, moment);
        differences = mk === null
          ? [`the scripted ${modelName} has no moment ${moment}`]
          : verdictDifferences(verdict, judge(scenario, runSchedule(model, scenario, { kills: [mk], interleaving: [] }) as RunOutcome, modelBaseline)).map((d) => `scripted ${moment}: ${d}`);
      }
      return { k, identity, verdict, failed: failedChecks({ scenario, outcome, verdict }), differences, seconds, notRepeated };
    });
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor(s.length / 2)]!;
};

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { systems: { type: 'string' }, scenarios: { type: 'string' }, concurrency: { type: 'string' }, json: { type: 'string' } } });
  const names = values.systems?.split(',') ?? [...RESTATE_MODES];
  for (const name of names) if (restateSystem(name) === undefined) fail(`--systems: expected some of ${RESTATE_MODES.join(', ')}, got "${name}"`);
  const all = lanternScenarios();
  const scenarios = values.scenarios === undefined ? all : values.scenarios.split(',').map((id) => all.find((s) => s.id === id) ?? fail(`--scenarios: no bundled scenario "${id}"`));
  const concurrency = values.concurrency === undefined ? 2 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) fail(`--concurrency: expected a whole number >= 1, got "${values.concurrency}"`);

  const serverStarts: number[] = [];
  watchServerStarts((ms) => serverStarts.push(ms));
  const runSeconds: number[] = [];
  const report: Record<string, unknown>[] = [];
  const tableLines = [`| restate system | tasks | kill points | ${COLUMNS.map((c) => CHECK_LABELS[c]).join(' | ')} | promises kept | agrees with | disagreements | seconds |`, `|---|---|---|${COLUMNS.map(() => '---').join('|')}|---|---|---|---|`];
  const afterWriteLines: string[] = [];
  const disagreements: string[] = [];
  const notRepeated: string[] = [];
  for (const name of names) {
    const promised = restateSystem(name)!.promised;
    // real clock: the bench reports how long each system's sweep took.
    const started = performance.now();
    const counts = Object.fromEntries(COLUMNS.map((c) => [c, 0])) as Record<CheckName, number>;
    const broken: string[] = [];
    const afterWrite = new AfterFirstWrite();
    let killPoints = 0;
    let disagreed = 0;
    const progress = startProgress(name, scenarios.length);
    for (const scenario of scenarios) {
      const results = await sweepTask(scenario, name, concurrency);
      killPoints += results.length;
      for (const r of results) {
        runSeconds.push(r.seconds);
        for (const c of COLUMNS) if (r.failed.includes(c)) counts[c]++;
        for (const d of r.differences) disagreements.push(`${scenario.id} ${name} ${r.identity}: ${d}`);
        if (r.differences.length > 0) disagreed++;
        if (r.notRepeated !== '') notRepeated.push(`${scenario.id} ${name} ${r.identity}: ${r.notRepeated}`);
      }
      const brokenHere = brokenPromises(results, promised);
      if (brokenHere.length > 0) broken.push(`${scenario.id}: ${brokenHere.join(', ')}`);
      afterWrite.add(results);
      report.push({ system: name, scenario: scenario.id, killPoints: results.map((r) => ({ k: r.k, identity: r.identity, failed: r.failed, differences: r.differences, verdict: r.verdict, seconds: r.seconds })) });
      progress.tick(`${scenario.id}: ${results.length} kill points`);
    }
    progress.end();
    const seconds = Math.round((performance.now() - started) / 1000);
    const model = MODELLED_BY[name];
    tableLines.push(`| ${name} | ${scenarios.length} | ${killPoints} | ${COLUMNS.map((c) => String(counts[c])).join(' | ')} | ${broken.length === 0 ? 'yes' : `no (${broken.join('; ')})`} | ${model === undefined ? '(no model: broken on purpose)' : `scripted ${model}`} | ${model === undefined ? '-' : disagreed} | ${seconds} |`);
    afterWriteLines.push(afterWrite.line(name));
  }
  watchServerStarts(null);
  console.log(tableLines.join('\n'));
  console.log('');
  console.log(afterWriteLines.join('\n'));
  console.log('');
  console.log(`Servers started: ${serverStarts.length}, ready in ${Math.min(...serverStarts)}-${Math.max(...serverStarts)} ms (median ${median(serverStarts)}). A kill-and-resume run (a killed life and its recovery, from scratch): median ${median(runSeconds).toFixed(2)} s, ${Math.min(...runSeconds).toFixed(2)}-${Math.max(...runSeconds).toFixed(2)} s, ${concurrency} side by side.`);
  console.log('');
  console.log(disagreements.length === 0 ? 'Restate and the scripted model agree at every kill point they share.' : `Restate and the scripted model disagree at ${disagreements.length} kill point(s):\n${disagreements.map((d) => `  ${d}`).join('\n')}`);
  console.log(notRepeated.length === 0 ? 'Every killed life repeated the baseline up to its kill point.' : `Killed lives that did not repeat the baseline up to their kill point: ${notRepeated.length}\n${notRepeated.map((d) => `  ${d}`).join('\n')}`);
  if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify({ table: tableLines, afterWrite: afterWriteLines, serverStarts, disagreements, notRepeated, tasks: report }, null, 2)}\n`);
  process.exitCode = disagreements.length + notRepeated.length === 0 ? 0 : 1;
}

await main();
