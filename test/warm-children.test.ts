// Starting children faster changes when a process starts, never what it does: lives handed to
// processes started ahead of them (src/harness/process/warm-pool.ts) give the verdicts that cold ones give,
// and a bundle started through the code-cache loader (src/harness/process/child-bundle.ts) prints what it
// prints without the cache. On a one-refund task, so that every kill point stays a few dozen
// processes: the warm exploration at every kill point against a cold one (killpoint's own agent);
// on DBOS, whose processes are slow to start, warm and cold runs from scratch at the kill points
// where the verdicts change and a stride through the rest. `npm run real` explores every bundled
// task under every strategy with warm children and with cold ones, each verdict checked against
// the simulation; `npm run dbos -- --by-equivalence --warm` explores each bundled task on DBOS with
// warm children, every kill point's verdict checked against its cold run from scratch.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../src/model/load.js';
import { compareTiersByEquivalence, formatMismatch } from '../src/harness/differential/real-vs-simulated.js';
import { liveChildCount, onChildSpawned } from '../src/harness/process/processes.js';
import { childBundle } from '../src/harness/process/child-bundle.js';
import { WarmPool, type WarmPoolFigures } from '../src/harness/process/warm-pool.js';
import { WARM_CHILDREN_VARIABLE } from '../src/harness/process/process-lives.js';
import { holdBackend, stopBackends } from '../src/harness/engines/dbos/backend.js';
import { dbosConfigNamed } from '../src/harness/engines/dbos/config.js';
import { dbosSystem } from '../src/harness/engines/dbos/engine.js';
import { dbosTier } from '../src/harness/engines/dbos/tier.js';
import { runWholeInProcesses, type WholeRunTier } from '../src/harness/process/whole-run.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { eventIdentities } from '../src/harness/check/kill-points.js';
import { failedChecks } from '../src/harness/check/checks.js';
import { judge } from '../src/harness/check/verdict.js';
import { inPool } from '../src/harness/process/pool.js';
import { runSchedule } from '../src/harness/session.js';

let tempRoot = '';
const savedTmp = process.env.TMPDIR;
beforeAll(() => {
  tempRoot = mkdtempSync(join(tmpdir(), 'killpoint-warm-test-'));
  process.env.TMPDIR = tempRoot;
});
afterAll(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(tempRoot, { recursive: true, force: true });
});

describe('warm children', () => {
  it('give every kill point of a one-refund task the verdict cold children give, each life still in a process of its own, and leave no spare running', async () => {
    const scenario = loadScenarioFile(join(import.meta.dirname, 'fixtures', 'one-refund.json'));
    const pools: WarmPoolFigures[] = [];
    const cold = await compareTiersByEquivalence(scenario, 'journal', [], 2, { onWarmFigures: (f) => pools.push(f) });
    expect(pools).toEqual([]); // cold unless asked for
    const given: number[] = [];
    onChildSpawned((pid) => given.push(pid));
    process.env[WARM_CHILDREN_VARIABLE] = '1';
    let warm;
    try {
      warm = await compareTiersByEquivalence(scenario, 'journal', [], 2, { onWarmFigures: (f) => pools.push(f) });
    } finally {
      delete process.env[WARM_CHILDREN_VARIABLE];
      onChildSpawned(null);
    }
    expect(warm.comparisons.filter((c) => c.mismatches.length > 0).map(formatMismatch)).toEqual([]);
    expect(warm.comparisons.map((c) => [c.case.schedule.kills, c.real])).toEqual(cold.comparisons.map((c) => [c.case.schedule.kills, c.real]));
    expect(warm.reduction).toEqual(cold.reduction);
    // One exploration, one pool: almost every life found its process loaded; every process given
    // a life got one life (distinct pids), and the spares nobody was given were killed.
    expect(pools).toHaveLength(1);
    const [pool] = pools;
    expect(new Set(given).size).toBe(given.length);
    expect(pool!.started).toBe(given.length + pool!.unused);
    expect(pool!.handedWarm).toBeGreaterThan(given.length / 2);
    expect(pool!.unused).toBeGreaterThan(0);
    expect(liveChildCount()).toBe(0);
    expect(readdirSync(tempRoot)).toEqual([]);
  }, 300_000);
});

describe('warm DBOS children', () => {
  it('run a one-refund task at the kill points where its verdicts change with the verdicts cold ones give (DBOS reads its life from stdin too)', async () => {
    const scenario = loadScenarioFile(join(import.meta.dirname, 'fixtures', 'one-refund.json'));
    const config = dbosConfigNamed('pglite/workflow')!;
    const tier = dbosTier(config, 'pglite/workflow');
    type Seen = { kills: number[]; lives: string[][]; failed: readonly string[]; doneTwice: string[]; sameAnswer: boolean };
    const pool = new WarmPool(1);
    // The warm runs below are no session of a system, so nothing else holds PGlite up for them.
    const release = holdBackend('pglite');
    try {
      // Warm: the tier's own lives, each handed to a process the pool started ahead of it (as an
      // exploration's are: the warm exploration itself is the journal's, above). Cold: each life a
      // process started for it. Whole runs, so that a sample of kill points costs a few processes each.
      const warmTier: WholeRunTier = { ...tier, life: (s, request) => tier.life(s, { ...request, warm: pool }) };
      const cold = dbosSystem('pglite/workflow', { tier: 'process' })!;
      const baseline = await runSchedule(cold, scenario, { kills: [], interleaving: [] });
      const seen = (kills: number[], outcome: RunOutcome): Seen => {
        const verdict = judge(scenario, outcome, baseline);
        return { kills, lives: outcome.lives.map((l) => eventIdentities(l.events)), failed: failedChecks({ scenario, outcome, verdict }), doneTwice: verdict.doneTwice.map(String), sameAnswer: verdict.sameAnswer };
      };
      // The kill points where the verdicts differ (before anything, in the gap, after the step's
      // record, after the workflow's): a warm child that ran the wrong life would be seen there.
      const ids = eventIdentities(baseline.lives[0]!.events);
      const points = [-1, ...['shop-commit[call_refund]', 'step-recorded[call_refund]', 'workflow-recorded'].map((id) => ids.indexOf(id))];
      expect(points.every((k) => k >= -1) && new Set(points).size === points.length).toBe(true);
      const pairs = await inPool(points, 2, async (k) => {
        const warm = seen([k], await runWholeInProcesses(warmTier, scenario, 'pglite/workflow', { kills: [k], interleaving: [] }));
        return { warm, fromScratch: seen([k], await runSchedule(cold, scenario, { kills: [k], interleaving: [] })) };
      });
      const warm = pairs.map((p) => p.warm);
      expect(warm).toEqual(pairs.map((p) => p.fromScratch));
      // Two lives or more a kill point: most were handed to a process started ahead of them.
      expect(pool.figures.handedWarm).toBeGreaterThan(points.length);
      // The gap is there, found by warm children as by cold ones.
      expect(warm.find((v) => v.kills[0] === points[1])!.doneTwice).not.toEqual([]);
    } finally {
      await pool.drain();
      release();
      await stopBackends();
    }
    expect(liveChildCount()).toBe(0);
  }, 300_000);
});

describe('a warm child that dies before it takes its life', () => {
  const fixture = join(import.meta.dirname, 'fixtures', 'dies-before-taking.ts');

  it('is not judged as the life: the life runs in the next process', async () => {
    const bundle = await childBundle({ entry: fixture, packages: 'external' });
    process.env.DIES_ONCE_MARKER = join(tempRoot, 'dies-once');
    const pool = new WarmPool(1);
    try {
      const exit = await pool.run(bundle, { LIFE_SAYS: 'hello' });
      expect(exit.code).toBe(0);
      // The one that died first (started for this life or as a spare), then the one the life ran in.
      expect(pool.figures.started).toBeGreaterThanOrEqual(2);
    } finally {
      await pool.drain();
      delete process.env.DIES_ONCE_MARKER;
    }
    expect(liveChildCount()).toBe(0);
  }, 60_000);

  it('stops with an error naming the bundle when every process it hands the life to ends first', async () => {
    const bundle = await childBundle({ entry: fixture, packages: 'external' });
    process.env.DIES_ONCE_MARKER = join(tempRoot, 'dies-always');
    process.env.DIES_ALWAYS = '1';
    const pool = new WarmPool(1);
    try {
      await expect(pool.run(bundle, { LIFE_SAYS: 'hello' })).rejects.toThrow(/3 processes in a row ended before they took their life \(exit 7\)/);
    } finally {
      await pool.drain();
      delete process.env.DIES_ONCE_MARKER;
      delete process.env.DIES_ALWAYS;
    }
  }, 60_000);
});

describe('the code cache of a bundle with its packages inlined', () => {
  const run = (loader: string) => spawnSync(process.execPath, [loader, 'one', 'two'], { env: { ...process.env, KILLPOINT_CODE_CACHE_REPORT: '1' }, encoding: 'utf8' });

  it('is made by the first start, taken by the next, and a broken one is compiled without and made again; the output never changes', async () => {
    const loader = await childBundle({ entry: join(import.meta.dirname, 'fixtures', 'cached-child.ts'), packages: 'inline' });
    const cache = loader.replace(/\.cjs$/, '.v8-cache');
    rmSync(cache, { force: true });
    const expected = '{"argv":4,"sum":6}\n';

    const first = run(loader);
    expect([first.status, first.stdout, first.stderr]).toEqual([0, expected, 'code cache: none\n']);
    expect(existsSync(cache)).toBe(true);

    const second = run(loader);
    expect([second.status, second.stdout, second.stderr]).toEqual([0, expected, 'code cache: accepted\n']);

    writeFileSync(cache, 'not a code cache');
    const broken = run(loader);
    expect([broken.status, broken.stdout, broken.stderr]).toEqual([0, expected, 'code cache: rejected\n']);
    expect(run(loader).stderr).toBe('code cache: accepted\n');
  }, 120_000);
});
