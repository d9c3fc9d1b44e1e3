// A Vercel Workflow life run on a thread of killpoint's process (its shop fenced, its world closed,
// its thread retired once it is killed) must say what the same life says when its process is
// killed with SIGKILL: the same lives, the same verdict, at every kill point sampled here (npm run
// differential:in-process -- --systems vercel-workflow:durable-agent,... compares every kill point
// of the tasks). A kill that cuts nothing off is caught by the same comparison. A user's own
// workflow (--vercel-workflow) runs on threads too, from its module bundled with the thread's main.
// `npm test` runs the sample (test/suite.ts): a refund without keys, in process and by SIGKILL, as
// the run is created and in the refund's gap (12 s); `npm run engines` (KILLPOINT_SUITE=all) runs
// every test.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareTiers } from '../src/harness/differential/in-process-vs-process.js';
import { vercelBundles } from '../src/harness/engines/vercel-workflow/bundles.js';
import { vercelConfigNamed } from '../src/harness/engines/vercel-workflow/config.js';
import { vercelWorkflowSystem } from '../src/harness/engines/vercel-workflow/engine.js';
import { vercelTier } from '../src/harness/engines/vercel-workflow/tier.js';
import { vercelModuleSpec, vercelModuleSystem, type VercelModuleVariant } from '../src/harness/engines/vercel-workflow/module/system.js';
import { eventIdentities } from '../src/harness/check/kill-points.js';
import { runSchedule } from '../src/harness/session.js';
import { lifeThreadsStarted } from '../src/harness/in-process/life-threads.js';
import { processSystem } from '../src/harness/process/process-system.js';
import { liveChildCount } from '../src/harness/process/processes.js';
import { loadScenarioFile } from '../src/model/load.js';
import { expectInProcessUnlessAsked, killPointsNamed } from './helpers.js';
import { fullSuiteDescribe, fullSuiteTest } from './suite.js';

// A task of one refund: its lives are short (35 events), and its refund has the gap.
const oneRefund = loadScenarioFile('test/fixtures/one-refund.json');
const both = (name: string) => ({ inProcess: vercelWorkflowSystem(name, { tier: 'in-process' })!, process: vercelWorkflowSystem(name, { tier: 'process' })! });

beforeAll(() => vercelBundles(), 180_000);
afterAll(() => expect(liveChildCount()).toBe(0));

describe('a Vercel Workflow life killed in process against the same life killed by SIGKILL', () => {
  it("a refund without keys: the same lives and verdicts as the run is created and in the refund's gap", async () => {
    const { inProcess, process } = both('durable-agent');
    const threadsBefore = lifeThreadsStarted();
    const points = await killPointsNamed(inProcess, oneRefund, ['run-created', 'shop-commit[call_refund]']);
    const r = await compareTiers(oneRefund, inProcess, process, { concurrency: 2, killPoints: points });
    expect(r.disagreements).toEqual([]);
    expect(r.killPoints).toBe(points.length);
    // Every life ran on a thread, and every killed life's thread was given up after it.
    expect(lifeThreadsStarted() - threadsBefore).toBeGreaterThan(points.length);
  }, 240_000);

  fullSuiteTest("with keys, every kill point explored in process as a check explores it (each life's kill points cut from one repeat of it): at the refund's start, gap and record, what SIGKILL gives", async () => {
    const { inProcess, process } = both('durable-agent+keys');
    const points = await killPointsNamed(inProcess, oneRefund, ['tool-start[call_refund]', 'shop-commit[call_refund]', 'step-recorded[call_refund]']);
    const r = await compareTiers(oneRefund, inProcess, process, { concurrency: 2, killPoints: points, inProcessEvery: true });
    expect(r.disagreements).toEqual([]);
    expect(r.killPoints).toBe(points.length);
  }, 240_000);

  fullSuiteTest('a kill that cuts nothing off (the life runs on to its end) is caught: the refund is no longer repeated in its gap', async () => {
    const name = 'durable-agent';
    const broken = processSystem({ engine: 'vercel-workflow', name, summary: 'a broken in-process kill', promised: [], killPoints: [], tier: vercelTier(vercelConfigNamed(name)!, 'in-process', { brokenKill: 'life-runs-on' }), runsIn: 'in-process' });
    const points = await killPointsNamed(broken, oneRefund, ['shop-commit[call_refund]']);
    const r = await compareTiers(oneRefund, broken, both(name).process, { concurrency: 2, killPoints: points });
    expect(r.disagreements).toHaveLength(1);
    expect(r.disagreements[0]).toMatch(/shop-commit\[call_refund\].*writesCommitted: in process 1, process 2/);
  }, 240_000);
});

fullSuiteDescribe('the Vercel Workflow tier on the command line', () => {
  it('runs in process unless --tier process asks for SIGKILL; --json says which ran, and the replay command keeps --tier process', async () => {
    const args = ['check', 'test/fixtures/one-refund.json', '--engine', 'vercel-workflow', '--strategy', 'durable-agent', '--schedule', 'shop-commit[call_refund]'];
    await expectInProcessUnlessAsked(args, 1, 'test/fixtures/one-refund.json --engine vercel-workflow --strategy durable-agent');
  }, 180_000);
});

fullSuiteDescribe("a user's own Vercel workflow in process", () => {
  const FIXTURES = 'test/fixtures/vercel-modules';
  const input = { orderId: 'O-7', email: 'dana@example.com' };
  const tiers = (module: string, variant: VercelModuleVariant = {}) => {
    const spec = vercelModuleSpec({ module: `${FIXTURES}/workflows/${module}`, input });
    return { inProcess: vercelModuleSystem(spec, 'in-process', variant), process: vercelModuleSystem(spec, 'process') };
  };

  it("explores every kill point in process as a check does (each life's kill points cut from one repeat of it), and gives what SIGKILL gives from scratch in the refund's gap (its return, without keys) and after the email's record (with keys, the email first)", async () => {
    for (const [module, interleaving, killAt] of [['unkeyed.ts', [0], 'step-returned[step 0]'], ['keyed.ts', [1], 'step-recorded[step 1]']] as const) {
      const { inProcess, process } = tiers(module);
      const ids = eventIdentities((await runSchedule(inProcess, inProcess.ownTask!, { kills: [], interleaving: [...interleaving] })).lives[0]!.events);
      const points = [ids.indexOf(killAt)];
      expect(points.every((k) => k >= 0), ids.join(', ')).toBe(true);
      const r = await compareTiers(inProcess.ownTask!, inProcess, process, { concurrency: 2, killPoints: points, interleaving, inProcessEvery: true });
      expect(r.disagreements, module).toEqual([]);
      expect(r.killPoints).toBe(points.length);
    }
  }, 240_000);

  // Each life sleeps on killpoint's clock (life-clock.ts), on a thread as in its own process: a
  // recovery's clock starts past its predecessor's last event, however far its sleep moved it.
  it('a sign-up that sleeps an hour and retries its welcome an hour later gives what SIGKILL gives as it starts to sleep and as it wakes (keyed at random: a repeat would show)', async () => {
    const spec = vercelModuleSpec({ module: `${FIXTURES}/workflows/sign-up.ts`, input: { email: 'ana@example.com', keys: 'random', sleep: '1h', retryAfter: '1h' } });
    const inProcess = vercelModuleSystem(spec, 'in-process');
    const points = await killPointsNamed(inProcess, inProcess.ownTask!, ['sleep[sleep 0]', 'woke[sleep 0]']);
    const r = await compareTiers(inProcess.ownTask!, inProcess, vercelModuleSystem(spec, 'process'), { concurrency: 2, killPoints: points, inProcessEvery: true });
    expect(r.disagreements).toEqual([]);
    expect(r.killPoints).toBe(points.length);
  }, 240_000);
  it('a kill that cuts nothing off (the life runs on to its end) is caught: the refund is no longer repeated in its gap', async () => {
    const broken = tiers('unkeyed.ts', { brokenKill: 'life-runs-on' });
    const points = await killPointsNamed(broken.inProcess, broken.inProcess.ownTask!, ['step-returned[step 0]']);
    const r = await compareTiers(broken.inProcess.ownTask!, broken.inProcess, broken.process, { concurrency: 2, killPoints: points });
    expect(r.disagreements).toHaveLength(1);
    expect(r.disagreements[0]).toMatch(/step-returned\[step 0\]\): failed checks: in process \[\], process \[done-twice\].*writesCommitted: in process 2, process 3/);
  }, 240_000);

  it('runs in process unless --tier process asks for SIGKILL; --json says which ran, the replay command keeps --tier process', async () => {
    const args = ['check', '--vercel-workflow', `${FIXTURES}/workflows/unkeyed.ts`, '--input', `${FIXTURES}/input.json`, '--schedule', 'step-returned[step 0]'];
    await expectInProcessUnlessAsked(args, 1, `--vercel-workflow ${FIXTURES}/workflows/unkeyed.ts --input ${FIXTURES}/input.json`);
  }, 180_000);
});
