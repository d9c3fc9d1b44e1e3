// A DBOS life killed inside killpoint's own process must say what the same life says when its
// process is killed with SIGKILL: the same lives, the same verdict, at every kill point sampled here
// (npm run differential:in-process compares every kill point of the 14 tasks). A kill that leaves
// DBOS's pool open is caught by the same comparison, and DBOS is left shut down. A user's own
// workflow (--dbos) runs in process too, with the same answers as its processes.
// `npm test` runs the sample (test/suite.ts): Dana's refund without keys, in process and by
// SIGKILL, at the workflow's start, in the refund's gap and after its record (11 s), DBOS left shut
// down and the pool's refusal once a life is killed (under a second each on the PGlite it started);
// `npm run engines` (KILLPOINT_SUITE=all) runs every test.

import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { eventIdentities } from '../src/harness/check/kill-points.js';
import { compareTiers, fromScratch } from '../src/harness/differential/in-process-vs-process.js';
import { holdBackend, holdingBackend, stopBackends, systemDatabase } from '../src/harness/engines/dbos/backend.js';
import { poolThrough } from '../src/harness/engines/dbos/held-dbos.js';
import { LifeFence } from '../src/harness/in-process/fence.js';
import { dbosConfigNamed } from '../src/harness/engines/dbos/config.js';
import { dbosSystem } from '../src/harness/engines/dbos/engine.js';
import { dbosTier } from '../src/harness/engines/dbos/tier.js';
import { processSystem } from '../src/harness/process/process-system.js';
import { liveChildCount } from '../src/harness/process/processes.js';
import { runSchedule } from '../src/harness/session.js';
import { lanternScenario } from '../src/model/load.js';
import { compareModuleTiersAt, expectInProcessUnlessAsked, killPointsNamed, type ModuleTiers } from './helpers.js';
import { dbosModuleSpec, dbosModuleSystem } from '../src/harness/engines/dbos/module/system.js';
import { SystemInputError } from '../src/harness/engine.js';
import type { DataFolderVariant } from '../src/harness/user-module/data-folder.js';
import { fullSuiteDescribe, fullSuiteTest } from './suite.js';

const dana = lanternScenario('T01');
const ivan = lanternScenario('T03');
const both = (name: string) => ({ inProcess: dbosSystem(name, { tier: 'in-process' })!, process: dbosSystem(name, { tier: 'process' })! });

afterAll(() => stopBackends());

describe('a DBOS life killed in process against the same life killed by SIGKILL', () => {
  it("Dana's refund without keys: the same lives and verdicts at the workflow's start, in the refund's gap and after its record", async () => {
    const points = await killPointsNamed(both('pglite/workflow').inProcess, dana, ['workflow-started', 'shop-commit[call_refund]', 'step-recorded[call_refund]', 'workflow-recorded']);
    const { inProcess, process } = both('pglite/workflow');
    const r = await compareTiers(dana, inProcess, process, { concurrency: 2, killPoints: points });
    expect(r.disagreements).toEqual([]);
    expect(r.killPoints).toBe(points.length);
    expect(liveChildCount()).toBe(0);
  }, 180_000);

  fullSuiteTest("Ivan's parallel cancellations with keys: the same at each commit, the other call still running beside it", async () => {
    const points = await killPointsNamed(both('pglite/workflow+keys').inProcess, ivan, ['shop-commit[call_cancel-both_1]', 'tool-result[call_cancel-both_1]', 'shop-commit[call_cancel-both_2]']);
    const { inProcess, process } = both('pglite/workflow+keys');
    const r = await compareTiers(ivan, inProcess, process, { concurrency: 2, killPoints: points });
    expect(r.disagreements).toEqual([]);
  }, 180_000);

  fullSuiteTest("a kill that leaves DBOS's pool open is caught: DBOS records the killed step's error, so the recovery never makes the refund", async () => {
    const name = 'pglite/workflow';
    // Held like the engine's own systems, so that PGlite stays up between its sessions.
    const broken = holdingBackend(processSystem({ engine: 'dbos', name, summary: 'a broken in-process kill', promised: [], killPoints: [], tier: dbosTier(dbosConfigNamed(name)!, name, 'in-process', { brokenPool: 'left-open' }), runsIn: 'in-process' }), 'pglite');
    const points = await killPointsNamed(both(name).inProcess, dana, ['tool-start[call_refund]']);
    const r = await compareTiers(dana, broken, both(name).process, { concurrency: 2, killPoints: points });
    expect(r.disagreements).toHaveLength(1);
    expect(r.disagreements[0]).toMatch(/tool-start\[call_refund\].*writesCommitted: in process 0, process 1/);
  }, 180_000);

  fullSuiteTest('is what a check runs unless --tier process asks for SIGKILL; --json says which ran, and a replay command keeps the tier asked for', async () => {
    // Without keys, pglite/workflow does not promise "no write done twice": the refund is repeated, exit 0.
    const args = ['check', 'scenarios/lantern/T01-dana-torn-pad.json', '--engine', 'dbos', '--strategy', 'pglite/workflow', '--schedule', 'shop-commit[call_refund]'];
    await expectInProcessUnlessAsked(args, 0, 'scenarios/lantern/T01-dana-torn-pad.json --engine dbos --strategy pglite/workflow');
  }, 120_000);

  it('leaves DBOS shut down once its lives are over, killed or not', async () => {
    await runSchedule(both('pglite/workflow+keys').inProcess, dana, { kills: [30], interleaving: [] });
    // The last life's shutdown is started at its end; the next life (or nobody) waits for it.
    await expect.poll(() => DBOS.isInitialized(), { timeout: 5_000 }).toBe(false);
  }, 60_000);
});

fullSuiteDescribe("a user's own DBOS workflow in process", () => {
  const FIXTURES = 'test/fixtures/dbos-modules';
  const input = { orderId: 'O-7', email: 'dana@example.com' };
  const tiers = (module: string, variant: DataFolderVariant = {}): ModuleTiers => {
    const spec = dbosModuleSpec({ module: `${FIXTURES}/${module}`, input });
    return { inProcess: dbosModuleSystem(spec, 'in-process', variant), sigkillFromScratch: fromScratch(dbosModuleSystem(spec, 'process')) };
  };

  // The two steps run in parallel: killed life after killed life, each life registers the workflow
  // and its steps are observed anew (an earlier life's observer left in place would see them too).
  it("explores every kill point in process as a check does (by equivalence, its rows copied), and gives what SIGKILL gives from scratch in the first step's gap and after the second's record, in both orders of its steps", async () => {
    for (const [module, interleaving] of [['unkeyed.ts', [0]], ['keyed.ts', [1]]] as const) {
      const { inProcess, sigkillFromScratch } = tiers(module);
      const ids = eventIdentities((await runSchedule(inProcess, inProcess.ownTask!, { kills: [], interleaving: [...interleaving] })).lives[0]!.events);
      const points = ['step-return[step 0]', 'step-recorded[step 1]'].map((id) => ids.indexOf(id));
      expect(points.every((k) => k >= 0), ids.join(', ')).toBe(true);
      const r = await compareTiers(inProcess.ownTask!, inProcess, sigkillFromScratch, { concurrency: 2, killPoints: points, interleaving, inProcessEvery: true });
      expect(r.disagreements, module).toEqual([]);
      expect(r.killPoints).toBe(points.length);
    }
  }, 180_000);

  it("a digest that leaves the workflow's data folder out is caught: the refund step's return (its ledger row written, DBOS's record not) shares the recovery of its start, and the refund done twice goes unseen", async () => {
    const { compared } = await compareModuleTiersAt(tiers('unkeyed.ts', { dataLeftOut: true }), ['step-return[step 0]']);
    expect(compared.disagreements).toHaveLength(1);
    expect(compared.disagreements[0]).toMatch(/step-return\[step 0\]\): failed checks: in process \[\], process \[done-twice/);
  }, 180_000);

  it('refuses a workflow registered when its module loads: DBOS clears its registrations between lives in one process (--tier process checks it)', async () => {
    const { inProcess } = tiers('registered-at-load.ts');
    const check = async () => {
      await runSchedule(inProcess, inProcess.ownTask!, { kills: [1], interleaving: [] });
      await runSchedule(inProcess, inProcess.ownTask!, { kills: [1], interleaving: [] });
    };
    await expect(check()).rejects.toThrow(SystemInputError);
    await expect(check()).rejects.toThrow(/createWorkflow\(ctx\) returned the same workflow function as in an earlier life: register the workflow inside createWorkflow .* or check it with --tier process/);
  }, 60_000);

  it('runs in process unless --tier process asks for SIGKILL; --json says which ran, the replay command keeps --tier process', async () => {
    const args = ['check', '--dbos', `${FIXTURES}/unkeyed.ts`, '--input', `${FIXTURES}/input.json`, '--schedule', 'step-return[step 0]'];
    await expectInProcessUnlessAsked(args, 1, `--dbos ${FIXTURES}/unkeyed.ts --input ${FIXTURES}/input.json`);
  }, 120_000);
});

describe("DBOS's pool in a life run in process", () => {
  it('refuses, once the life is killed, a query that was waiting for a connection before the kill', async () => {
    const databaseUrl = await systemDatabase('pglite');
    const release = holdBackend('pglite');
    try {
      const fence = new LifeFence('a life');
      const pool = poolThrough(fence, { what: 'a life', databaseUrl, backend: 'pglite' }) as unknown as {
        connect(): Promise<{ query(text: string): Promise<unknown>; release(): void; on(event: 'error', listener: () => void): void }>;
        query(text: string): Promise<{ rows: unknown[] }>;
      };
      const busy = await pool.connect(); // its only connection
      busy.on('error', () => {}); // what DBOS does with a connection it holds
      const waiting = pool.query('SELECT 1 AS one');
      fence.kill();
      // Its socket's end reaches the pool first, so the pool opens a new connection for the waiting query.
      await new Promise((resolve) => setTimeout(resolve, 20));
      busy.release();
      await expect(waiting).rejects.toThrow(/killed at its kill point/);
      await expect(pool.query('SELECT 1')).rejects.toThrow(/killed at its kill point/);
    } finally {
      release();
    }
  });
});
