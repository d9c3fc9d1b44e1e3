// Mastra under killpoint: a real Mastra workflow (@mastra/core, snapshots in @mastra/libsql on a
// file in the run's folder), each life a process killed with SIGKILL, each recovery the run's own
// restart(). Mastra needs Node 22.13 or later: on an older Node this file checks only that
// `--engine mastra` says so (exit 2, one line) and skips the rest, saying why; CI runs it whole
// under Node 22 (.ci/node-leg).
//
// Under Node 22: Dana's refund killed in its gap (done twice without keys, exit 1; every check with
// keys, exit 0); Ivan's parallel calls in the order the picks choose; a one-refund task at every
// kill point by equivalence against the scripted workflow strategy, differing exactly where
// Mastra's restart() runs a recorded step again (differential.ts).

import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventIdentities, findKillPoint } from '../src/harness/check/kill-points.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { judge } from '../src/harness/check/verdict.js';
import { mastraRedoes, scriptedMoment, verdictDifferences } from '../src/harness/engines/mastra/differential.js';
import { mastraSystem } from '../src/harness/engines/mastra/engine.js';
import { MASTRA_NODE, nodeRunsMastra } from '../src/harness/engines/mastra/node-version.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { lanternScenario, loadScenarioFile } from '../src/model/load.js';
import { liveChildCount } from '../src/harness/process/processes.js';
import { exploreByEquivalence } from '../src/harness/search/equivalence.js';
import { runSchedule } from '../src/harness/session.js';
import { killpointCommand, type JudgedPoint } from './helpers.js';

const HERE = nodeRunsMastra();
const DANA = 'scenarios/lantern/T01-dana-torn-pad.json';
const ONE_REFUND = join(import.meta.dirname, 'fixtures', 'one-refund.json');
const NONE = { kills: [], interleaving: [] };

describe.skipIf(HERE)(`on a Node older than ${MASTRA_NODE.major}.${MASTRA_NODE.minor}`, () => {
  it('--engine mastra is bad input in one line naming the Node it needs', async () => {
    const ran = await killpointCommand(['check', DANA, '--engine', 'mastra', '--strategy', 'workflow']);
    expect(ran.status).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toBe(`killpoint check: mastra: @mastra/core needs Node 22.13 or later; this is Node ${process.versions.node}\n`);
  }, 60_000);
});

describe.skipIf(!HERE)(`Mastra (needs Node ${MASTRA_NODE.major}.${MASTRA_NODE.minor} or later; this is ${process.versions.node})`, () => {
  afterAll(() => expect(liveChildCount()).toBe(0));

  it("Dana's refund killed after its commit: without keys done twice (exit 1), with keys every check (exit 0), nothing left behind", async () => {
    const gap = ['--schedule', 'shop-commit[call_refund]'];
    const [plain, keyed] = await Promise.all([
      killpointCommand(['check', DANA, '--engine', 'mastra', '--strategy', 'workflow', ...gap]),
      killpointCommand(['check', DANA, '--engine', 'mastra', '--strategy', 'workflow+keys', ...gap]),
    ]);
    for (const r of [plain, keyed]) {
      expect(r.stderr).toBe('');
      expect(r.left).toEqual([]);
      expect(r.stdout).toMatch(/life 2 \(recovery 1\)/);
    }
    expect(plain.status).toBe(1);
    expect(plain.stdout).toMatch(/done twice/);
    expect(plain.stdout).toMatch(/refund O-1042\/L1 committed twice/);
    expect(keyed.status).toBe(0);
  }, 240_000);

  it("a finding: a run ended by bail(), killed right after the snapshot of the step that bailed, is left 'bailed', which restart() refuses: the recovery crashes and the answer is never sent (exit 1)", async () => {
    const ran = await killpointCommand(['check', DANA, '--engine', 'mastra', '--strategy', 'workflow+keys/bail', '--schedule', 'step-recorded[step 10]']);
    expect(ran.status).toBe(1);
    expect(ran.stdout).toMatch(/life 2 \(recovery 1\): 0 events, stopped: the Mastra life crashed \(exit 1\): Error: This workflow run was not active/);
    expect(ran.stdout).toMatch(/answer: none delivered/);
    expect(ran.left).toEqual([]);
  }, 240_000);

  it("Ivan's parallel calls (.parallel() steps) run in the order the picks choose, the same order again for the same picks", async () => {
    const system = mastraSystem('workflow')!;
    const ivan = lanternScenario('T03');
    const order = (events: { kind: string }[]) => eventIdentities(events as never).filter((id) => id.startsWith('tool-start'));
    const run = (picks: number[]) => runSchedule(system, ivan, { kills: [], interleaving: picks });
    // A pick at each of a call's three passes of the gate (before its start, its commit, its result) where both calls wait.
    const secondFirst = [1, 1, 1, 1, 1, 1];
    const [a, b, c] = await Promise.all([run([]), run([]), run(secondFirst)]);
    expect(a.pickWidths.length).toBeGreaterThanOrEqual(2);
    expect(a.pickWidths.every((w) => w === 2)).toBe(true);
    expect(JSON.stringify(a.lives[0]!.events)).toBe(JSON.stringify(b.lives[0]!.events));
    expect(order(a.lives[0]!.events).slice(1)).toEqual(['tool-start[call_get-orders_1]', 'tool-start[call_get-orders_2]', 'tool-start[call_cancel-both_1]', 'tool-start[call_cancel-both_2]']);
    expect(order(c.lives[0]!.events).slice(1)).toEqual(['tool-start[call_get-orders_2]', 'tool-start[call_get-orders_1]', 'tool-start[call_cancel-both_2]', 'tool-start[call_cancel-both_1]']);
    // The second call ran whole first: its commit before the first call's start.
    expect(findKillPoint(c.lives[0]!.events, 'shop-commit[call_cancel-both_2]')).toBeLessThan(findKillPoint(c.lives[0]!.events, 'tool-start[call_cancel-both_1]')!);
  }, 120_000);

  it('a one-refund task at every kill point by equivalence: the scripted workflow strategy\'s verdict at every kill point they share, except right after the record of a step Mastra runs again', async () => {
    const scenario = loadScenarioFile(ONE_REFUND);
    const system = mastraSystem('workflow')!;
    const baseline = await runSchedule(system, scenario, NONE);
    const events = baseline.lives[0]!.events;
    const ids = eventIdentities(events);
    const judged: JudgedPoint[] = [];
    const explored = await exploreByEquivalence(scenario, system, [{ picks: [], baseline }], 1, (c) => {
      const k = c.kills[0]!;
      if (k >= 0) judged.push({ k, identity: ids[k]!, verdict: c.verdict(), failed: c.failed });
    }, { concurrency: 2 });
    expect(judged.map((v) => v.k).sort((a, b) => a - b)).toEqual(ids.map((_, k) => k));
    // Kill points share recoveries: a digest that read the snapshots' times would make every kill point a state of its own.
    // Measured: 15 lives for 24 kill points; 25 with the times read.
    expect(explored.reduction.livesRun).toBeLessThan(ids.length * 0.75);

    const model = scripted('workflow');
    const modelBaseline = runSchedule(model, scenario, NONE) as RunOutcome;
    const modelEvents = modelBaseline.lives[0]!.events;
    const differing = judged.sort((a, b) => a.k - b.k).flatMap((v) => {
      const moment = scriptedMoment(events, v.k);
      const mk = findKillPoint(modelEvents, moment);
      if (mk === null) return [`${v.identity}: the scripted workflow has no moment ${moment}`];
      const j = judge(scenario, runSchedule(model, scenario, { kills: [mk], interleaving: [] }) as RunOutcome, modelBaseline);
      const lines = verdictDifferences(v.verdict, j);
      return lines.length === 0 ? [] : [v.identity];
    });
    // Every kill point the model shares agrees, but where Mastra runs a recorded step again.
    expect(differing).toEqual(judged.filter((v) => mastraRedoes(scenario, events, v.k)).map((v) => v.identity));
    // Among them, the refund's own record: the refund done twice although its result was persisted.
    const refundRecord = judged.find((v) => v.identity === 'step-recorded[call_refund]')!;
    expect(refundRecord.verdict.doneTwice.length).toBe(1);
  }, 600_000);
});
