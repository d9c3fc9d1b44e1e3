// A Restate life run inside killpoint's own process (its service on an endpoint of this process,
// torn down at the kill point) must say what the same life says when its process is killed with
// SIGKILL: the same lives, the same verdict, at every kill point sampled here (npm run
// differential:in-process compares every kill point of the 14 tasks). An endpoint whose
// connections are left open at the kill is caught by the same comparison. A user's own service
// (--restate) runs in process too, with the same answers as its processes.
// `npm test` runs the sample (test/suite.ts): Dana's refund without keys, in process and by
// SIGKILL, in the refund's gap and after the invocation's output (9 s); `npm run engines`
// (KILLPOINT_SUITE=all) runs every test.

import { describe, expect, it } from 'vitest';
import { eventIdentities } from '../src/harness/check/kill-points.js';
import { compareTiers } from '../src/harness/differential/in-process-vs-process.js';
import { ATTACH_TIMEOUT_VARIABLE } from '../src/harness/engines/restate/client.js';
import { restateConfigNamed } from '../src/harness/engines/restate/config.js';
import { restateSystem } from '../src/harness/engines/restate/engine.js';
import { restateSession } from '../src/harness/engines/restate/session.js';
import { restateTier } from '../src/harness/engines/restate/tier.js';
import { restateModuleSpec, restateModuleSystem } from '../src/harness/engines/restate/module/system.js';
import type { SystemUnderTest } from '../src/harness/engine.js';
import { runSchedule } from '../src/harness/session.js';
import { lanternScenario } from '../src/model/load.js';
import { expectInProcessUnlessAsked, killPointsNamed, runMain } from './helpers.js';
import { fullSuiteDescribe, fullSuiteTest } from './suite.js';

const dana = lanternScenario('T01');
const ivan = lanternScenario('T03');
const both = (name: string) => ({ inProcess: restateSystem(name, { tier: 'in-process' })!, process: restateSystem(name, { tier: 'process' })! });

describe('a Restate life killed in process against the same life killed by SIGKILL', () => {
  it("Dana's refund without keys: the same lives and verdicts in the refund's gap and after the invocation's output", async () => {
    const { inProcess, process } = both('service');
    const points = await killPointsNamed(inProcess, dana, ['shop-commit[call_refund]', 'invocation-done']);
    const r = await compareTiers(dana, inProcess, process, { concurrency: 2, killPoints: points });
    expect(r.disagreements).toEqual([]);
    expect(r.killPoints).toBe(points.length);
  }, 180_000);

  fullSuiteTest("Ivan's parallel cancellations with keys: the same at each commit, the other call still running beside it", async () => {
    const { inProcess, process } = both('service+keys');
    const points = await killPointsNamed(inProcess, ivan, ['shop-commit[call_cancel-both_1]', 'shop-commit[call_cancel-both_2]']);
    const r = await compareTiers(ivan, inProcess, process, { concurrency: 2, killPoints: points });
    expect(r.disagreements).toEqual([]);
  }, 180_000);

  fullSuiteTest("an endpoint whose connections stay open at the kill is caught: the killed life goes on talking to the server, and the recovery never makes the refund again", async () => {
    const name = 'service';
    const config = restateConfigNamed(name)!;
    const broken: SystemUnderTest = {
      ...both(name).inProcess,
      summary: 'a broken in-process kill',
      open: (scenario) => restateSession(scenario, name, (server, warm) => restateTier(config, name, server, warm, 'in-process', { brokenEndpoint: 'connections-left-open' })),
    };
    // The invocation stays with the killed life's connection, and a recovery waits for its output
    // as long as killpoint lets it (90 s by default): 8 s here, room enough for the lives by
    // SIGKILL beside it.
    process.env[ATTACH_TIMEOUT_VARIABLE] = '8';
    let r;
    try {
      const points = await killPointsNamed(broken, dana, ['shop-commit[call_refund]']);
      r = await compareTiers(dana, broken, both(name).process, { concurrency: 2, killPoints: points });
    } finally {
      delete process.env[ATTACH_TIMEOUT_VARIABLE];
    }
    expect(r.disagreements).toHaveLength(1);
    expect(r.disagreements[0]).toMatch(/shop-commit\[call_refund\].*writesCommitted: in process 1, process 2/);
  }, 180_000);
});

fullSuiteDescribe("a user's own Restate service in process", () => {
  const FIXTURES = 'test/fixtures/restate-modules';
  const input = { orderId: 'O-7', email: 'dana@example.com' };
  const tiers = (module: string) => {
    const spec = restateModuleSpec({ module: `${FIXTURES}/${module}`, input });
    return { inProcess: restateModuleSystem(spec, 'in-process'), process: restateModuleSystem(spec, 'process') };
  };

  it("gives the lives and verdicts its processes give, as the refund's closure returns (without keys) and after the email's journal entry (with keys), in both orders of its steps", async () => {
    for (const [module, interleaving, killAt] of [['unkeyed.ts', [0], 'run-return[step 0]'], ['keyed.ts', [1], 'step-recorded[step 1]']] as const) {
      const { inProcess, process } = tiers(module);
      const ids = eventIdentities((await runSchedule(inProcess, inProcess.ownTask!, { kills: [], interleaving: [...interleaving] })).lives[0]!.events);
      const points = [ids.indexOf(killAt)];
      expect(points.every((k) => k >= 0), ids.join(', ')).toBe(true);
      const r = await compareTiers(inProcess.ownTask!, inProcess, process, { concurrency: 2, killPoints: points, interleaving });
      expect(r.disagreements, module).toEqual([]);
      expect(r.killPoints).toBe(points.length);
    }
  }, 180_000);

  it('runs in process unless --tier process asks for SIGKILL; --json says which ran, the replay command keeps --tier process', async () => {
    const args = ['check', '--restate', `${FIXTURES}/unkeyed.ts`, '--input', `${FIXTURES}/input.json`, '--schedule', 'run-return[step 0]'];
    await expectInProcessUnlessAsked(args, 1, `--restate ${FIXTURES}/unkeyed.ts --input ${FIXTURES}/input.json`);
  }, 120_000);
});

// ctx.sleep on killpoint's clock (engines/restate/module/sleeps.ts): Restate's server owns the
// timer and fires it by the machine's clock, so the SDK is asked for a sleep due at once, journaled
// all the same; the handler's clock moves by the whole sleep. A reminder that sleeps an hour between
// two writes checks in seconds (the 5 s sleep: 74 s before, failing on its answer, the handler's
// clock never having moved; 19 s after). Keyed, every kill point holds, the sleep's two among them,
// in either tier; unkeyed, a write is still done twice.
fullSuiteTest("a user's reminder that sleeps an hour (ctx.sleep) between two writes: keyed, every kill point holds in either tier; unkeyed, done twice", async () => {
  const reminder = (input: object, ...rest: string[]) => ['check', '--restate', 'test/fixtures/restate-modules/sleepy.ts', '--input', JSON.stringify({ booking: 'B-1', sleepMs: 3_600_000, keyed: true, ...input }), ...rest];
  for (const tier of [[], ['--tier', 'process']]) {
    const keyed = await runMain(reminder({}, ...tier));
    expect(keyed.err.join('\n'), tier.join(' ')).toBe('');
    expect(keyed.status).toBe(0);
  }
  const woke = await runMain(reminder({}, '--schedule', 'woke[sleep 0]'));
  expect(woke.out.join('\n')).toMatch(/sleep 0: the run sleeps \(its wake time recorded\)\n.*sleep 0: over   <-- KILL/);
  const unkeyed = await runMain(reminder({ keyed: false }));
  expect(unkeyed.out.join('\n')).toContain('book B-1 committed twice');
  expect(unkeyed.status).toBe(1);
}, 300_000);

fullSuiteDescribe("a Restate life's events, in process", () => {
  // The SDK starts side-by-side closures in an order of its own progress loop and the connection's
  // timing; run in process, where the loop is shared, it came out both ways run to run.
  it("are the same run after run for the same picks: Ivan's parallel calls start in the order the gate lets them", async () => {
    const system = restateSystem('service+keys', { tier: 'in-process' })!;
    const runs = new Set<string>();
    for (let run = 0; run < 5; run++) runs.add(eventIdentities((await runSchedule(system, ivan, { kills: [], interleaving: [] })).lives[0]!.events).join(' '));
    expect(runs.size).toBe(1);
    expect([...runs][0]).toContain('run-start[call_cancel-both_1] tool-start[call_cancel-both_1] run-start[call_cancel-both_2] tool-start[call_cancel-both_2]');
  }, 120_000);
});

fullSuiteDescribe('the Restate tier on the command line', () => {
  it('runs in process unless --tier process asks for SIGKILL; --json says which ran, and the replay command keeps --tier process', async () => {
    const args = ['check', 'scenarios/lantern/T01-dana-torn-pad.json', '--engine', 'restate', '--strategy', 'service', '--schedule', 'shop-commit[call_refund]'];
    await expectInProcessUnlessAsked(args, 1, 'scenarios/lantern/T01-dana-torn-pad.json --engine restate --strategy service');
  }, 120_000);
});
