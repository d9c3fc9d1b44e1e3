// A real engine killed inside killpoint's own process must say what the same engine says when its
// process is killed with SIGKILL: the same lives, the same verdict, at every kill point sampled
// here (npm run differential:in-process compares every kill point of the 14 tasks). A kill that
// cuts nothing off is caught by the same comparison, and abandoned lives leave nothing open.
// `npm test` runs the sample (test/suite.ts): Dana's refund on createReactAgent v2, in process and
// by SIGKILL, before, in and after the refund's gap (8 s), a state copy taken one event late caught
// (under a second), and --tier refused where an engine does not choose; `npm run engines`
// (KILLPOINT_SUITE=all) runs every test.

import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eventIdentities } from '../src/harness/check/kill-points.js';
import { compareTiers, fromScratch } from '../src/harness/differential/in-process-vs-process.js';
import { langGraphConfigNamed } from '../src/harness/engines/langgraph/config.js';
import { langGraphSystem } from '../src/harness/engines/langgraph/engine.js';
import { langGraphModuleSpec, langGraphModuleSystem } from '../src/harness/engines/langgraph/module/system.js';
import type { DataFolderVariant } from '../src/harness/user-module/data-folder.js';
import { langGraphTier } from '../src/harness/engines/langgraph/run.js';
import { collectEveryLives } from '../src/harness/in-process/abandoned-lives.js';
import { lifeThreadsStarted } from '../src/harness/in-process/life-threads.js';
import { processSystem } from '../src/harness/process/process-system.js';
import { liveChildCount, onChildSpawned } from '../src/harness/process/processes.js';
import { explore } from '../src/harness/search/explore.js';
import { runSchedule } from '../src/harness/session.js';
import { lanternScenario, loadScenarioFile } from '../src/model/load.js';
import { compareModuleTiersAt, expectInProcessUnlessAsked, runMain, type ModuleTiers } from './helpers.js';
import { fullSuiteDescribe, fullSuiteTest } from './suite.js';

const dana = lanternScenario('T01');
const ivan = lanternScenario('T03');
const oneRefund = loadScenarioFile('test/fixtures/one-refund.json');
const NONE = { kills: [], interleaving: [] };
const both = (name: string) => ({ inProcess: langGraphSystem(name)!, process: langGraphSystem(name, { tier: 'process' })! });

/** The kill points of a run never killed with these identities, and its first and last. */
async function pointsOf(name: string, scenario: typeof dana, identities: string[]): Promise<number[]> {
  const ids = eventIdentities((await runSchedule(langGraphSystem(name)!, scenario, NONE)).lives[0]!.events);
  const points = identities.map((id) => ids.indexOf(id));
  expect(points.every((k) => k >= 0), `${identities.join(', ')} among ${ids.join(', ')}`).toBe(true);
  return [...new Set([-1, 0, ...points, ids.length - 1])];
}

describe('a LangGraph life killed in process against the same life killed by SIGKILL', () => {
  it("Dana's refund on createReactAgent v2 (sync): the same lives and verdicts before, in and after the refund's gap", async () => {
    const points = await pointsOf('react/sync', dana, ['tool-start[call_refund]', 'shop-commit[call_refund]', 'tool-result[call_refund]', 'writes-saved[call_refund]', 'answer-delivered']);
    const { inProcess, process } = both('react/sync');
    const r = await compareTiers(dana, inProcess, process, { concurrency: 2, killPoints: points });
    expect(r.disagreements).toEqual([]);
    expect(r.killPoints).toBe(points.length);
    expect(liveChildCount()).toBe(0);
  }, 180_000);

  fullSuiteTest("Ivan's parallel cancellations on a ToolNode with keys: the same at the commits of both calls", async () => {
    const points = await pointsOf('toolnode/sync+keys', ivan, ['tool-start[call_cancel-both_2]', 'shop-commit[call_cancel-both_1]', 'shop-commit[call_cancel-both_2]', 'writes-saved[call_cancel-both_1+call_cancel-both_2]']);
    const { inProcess, process } = both('toolnode/sync+keys');
    const r = await compareTiers(ivan, inProcess, process, { concurrency: 2, killPoints: points });
    expect(r.disagreements).toEqual([]);
  }, 180_000);

  fullSuiteTest('a kill that cuts nothing off (the life runs on to its end, its stores open) is caught: the refund is no longer repeated in its gap', async () => {
    const config = langGraphConfigNamed('react/sync')!;
    const broken = processSystem({ engine: 'langgraph', name: 'react/sync', summary: 'a broken in-process kill', promised: [], killPoints: [], tier: langGraphTier(config, 'react/sync', undefined, 'in-process', { brokenKill: 'life-runs-on' }), runsIn: 'in-process' });
    const points = await pointsOf('react/sync', dana, ['shop-commit[call_refund]']);
    const r = await compareTiers(dana, broken, langGraphSystem('react/sync', { tier: 'process' })!, { concurrency: 2, killPoints: points.slice(2, 3) });
    expect(r.disagreements).toHaveLength(1);
    expect(r.disagreements[0]).toMatch(/shop-commit\[call_refund\].*doneTwice: in process \[\], process \["refund/);
  }, 120_000);

  fullSuiteTest("every kill point of Dana's refund cut from one repeat of each life: the verdicts and lives of a life killed at each", async () => {
    const config = langGraphConfigNamed('react/sync')!;
    const killedAtEach = processSystem({ engine: 'langgraph', name: 'react/sync', summary: 'each kill point a life of its own', promised: [], killPoints: [], tier: langGraphTier(config, 'react/sync', undefined, 'in-process', { cutEach: 'by a killed life' }), runsIn: 'in-process' });
    const r = await compareTiers(dana, langGraphSystem('react/sync')!, killedAtEach, { concurrency: 1 });
    const events = (await runSchedule(langGraphSystem('react/sync')!, dana, NONE)).lives[0]!.events.length;
    expect(r.killPoints).toBe(events + 1);
    expect(r.disagreements).toEqual([]);
    // The explorer says how it cut: one repeat of the baseline stood for every kill point.
    const explored = await explore(dana, langGraphSystem('react/sync')!, { kills: 1, interleavingBound: 1, seed: 1 });
    expect(explored.reduction).toMatchObject({ livesRepeatedToCut: 1, killPointsCopied: events });
    expect(explored.reduction?.childrenKilled).toBeUndefined();
  }, 180_000);

  fullSuiteTest("runs its lives on threads of their own, each life as it runs on killpoint's own thread: every kill point of Dana's refund, the same lives and verdicts", async () => {
    const config = langGraphConfigNamed('react/sync')!;
    const ownThread = processSystem({ engine: 'langgraph', name: 'react/sync', summary: "on killpoint's own thread", promised: [], killPoints: [], tier: langGraphTier(config, 'react/sync', undefined, 'in-process', { ownThread: true }), runsIn: 'in-process' });
    const r = await compareTiers(dana, langGraphSystem('react/sync')!, ownThread, { concurrency: 2 });
    expect(r.killPoints).toBeGreaterThan(70);
    expect(r.disagreements).toEqual([]);
    // The default tier did run on threads (the pools are kept for the process, so counted since it started).
    expect(lifeThreadsStarted()).toBeGreaterThan(0);
  }, 180_000);

  it('a state copy taken one event late (what the next event did already in it) is caught by the same comparison', async () => {
    const config = langGraphConfigNamed('react/sync')!;
    const tier = (variant: Parameters<typeof langGraphTier>[4]) => processSystem({ engine: 'langgraph', name: 'react/sync', summary: 'a variant', promised: [], killPoints: [], tier: langGraphTier(config, 'react/sync', undefined, 'in-process', variant), runsIn: 'in-process' });
    // Against the one-repeat cuts, which the test above holds equal to a life killed at each kill
    // point; on a task of one refund, whose lives are short.
    const r = await compareTiers(oneRefund, tier({ brokenCopy: 'one-event-late' }), langGraphSystem('react/sync')!, { concurrency: 1 });
    expect(r.disagreements.length).toBeGreaterThan(0);
    expect(r.disagreements.join('\n')).toMatch(/tool-start\[call_refund\].*doneTwice/);
  }, 180_000);

  fullSuiteTest('in-process lives start no process and leave no handle open, however they were killed', async () => {
    const system = langGraphSystem('react/sync')!;
    const baseline = await runSchedule(system, dana, NONE);
    const handlesBefore = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length;
    const spawned: number[] = [];
    onChildSpawned((pid) => spawned.push(pid));
    try {
      const events = baseline.lives[0]!.events.length;
      for (let k = 0; k < events; k += 5) await runSchedule(system, dana, { kills: [k], interleaving: [] });
    } finally {
      onChildSpawned(null);
    }
    expect(spawned).toEqual([]);
    expect(process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length).toBeLessThanOrEqual(handlesBefore);
  }, 120_000);
});

fullSuiteDescribe("a user's graph in process", () => {
  // The support agent's graph opens its ledger (a SQLite file in the life's folder) in every life
  // and never closes it: SIGKILL closes it in a process; in process, its handle goes when the
  // collector finalizes it, which the tier asks for every so many lives.
  it.runIf(existsSync('/proc/self/fd'))('that opens a database in every life and never closes it does not pile up open files', async () => {
    const own = langGraphModuleSystem(langGraphModuleSpec({ module: 'examples/support-agent-langgraph/src/agent-keyed.ts', inputFile: 'examples/support-agent-langgraph/input.json' }));
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const previous = collectEveryLives(8);
    try {
      const events = (await runSchedule(own, own.ownTask!, NONE)).lives[0]!.events.length;
      const before = openFiles();
      let lives = 0;
      let most = before;
      for (let k = 0; lives < 48; k = (k + 3) % events) {
        lives += (await runSchedule(own, own.ownTask!, { kills: [k], interleaving: [] })).lives.length;
        most = Math.max(most, openFiles());
      }
      // Without the collections, each life's ledger stays open: 48 more files.
      expect(most - before).toBeLessThan(24);
    } finally {
      collectEveryLives(previous);
    }
  }, 120_000);
});

fullSuiteDescribe("a user's graph explored by equivalence", () => {
  const tiers = (module: string, variant: DataFolderVariant = {}): ModuleTiers => {
    const spec = langGraphModuleSpec({ module: `examples/support-agent-langgraph/src/${module}`, inputFile: 'examples/support-agent-langgraph/input.json' });
    return { inProcess: langGraphModuleSystem(spec, 'in-process', variant), sigkillFromScratch: fromScratch(langGraphModuleSystem(spec, 'process')) };
  };

  it("gives, at each kill point around the refund (its ledger row written before its checkpoint) and the email, what SIGKILL gives from scratch, with and without keys", async () => {
    for (const module of ['agent.ts', 'agent-keyed.ts']) {
      const { points, compared } = await compareModuleTiersAt(tiers(module), ['tool-start[call_1_refund]', 'tool-result[call_1_refund]', 'tool-result[call_2_email]', 'writes-saved[call_1_refund+call_2_email]']);
      expect(compared.disagreements, module).toEqual([]);
      expect(compared.killPoints).toBe(points.length);
    }
  }, 240_000);

  it('a digest that leaves the agent\'s data folder out is caught: the state right after the refund shares the recovery of the state before it, and the refund done twice goes unseen', async () => {
    const { compared } = await compareModuleTiersAt(tiers('agent.ts', { dataLeftOut: true }), ['tool-result[call_1_refund]']);
    expect(compared.disagreements).toHaveLength(1);
    expect(compared.disagreements[0]).toMatch(/tool-result\[call_1_refund\]\): failed checks: in process \[\], process \[done-twice/);
  }, 240_000);
});

describe('the tier, on the command line', () => {
  fullSuiteTest('LangGraph runs in process unless --tier process asks for SIGKILL; --json and the replay command say which', async () => {
    // Without keys, toolnode/sync does not promise "no write done twice": the refund is repeated, exit 0.
    const args = ['check', 'scenarios/lantern/T01-dana-torn-pad.json', '--engine', 'langgraph', '--strategy', 'toolnode/sync', '--schedule', 'shop-commit[call_refund]'];
    await expectInProcessUnlessAsked(args, 0, 'scenarios/lantern/T01-dana-torn-pad.json --engine langgraph --strategy toolnode/sync');
  }, 120_000);

  it('an engine that runs its lives one way only refuses --tier for the other (exit 2, naming the engines that choose)', async () => {
    const r = await runMain(['check', 'scenarios/lantern/T01-dana-torn-pad.json', '--engine', 'scripted', '--tier', 'process']);
    expect(r.status).toBe(2);
    expect(r.err.join('\n')).toContain('--tier process: the scripted engine runs its lives one way only; --tier chooses for langgraph, dbos, vercel-workflow, restate');
  });
});
