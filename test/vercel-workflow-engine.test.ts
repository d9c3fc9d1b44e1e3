// Vercel Workflow under killpoint: a real Workflow SDK run on the local world, each life a process
// killed with SIGKILL (--tier process; test/vercel-in-process.test.ts compares the default, lives
// on threads of killpoint's process, with it). A sample, as tests take: the command line at the kill points that matter (a
// refund in its gap without keys, with keys and with the broken random keys, on a task of one
// refund, whose lives are short; Ivan's parallel cancellations with keys), each command with a
// temp folder of its own that must be empty and a process tree that must be gone once it exits; a
// kill right after the run is created, whose recovery must resume that run and start no other;
// the parallel calls' order chosen and repeatable; bad input named. The sweep, every kill point of
// the 14 tasks against the scripted workflow strategies, is `npm run vercel-workflow`.
// `npm test` runs the sample (test/suite.ts): the kill right after the run is created and its
// recovery (2 s), and the bad input; `npm run engines` (KILLPOINT_SUITE=all) runs every test.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventIdentities, findKillPoint } from '../src/harness/check/kill-points.js';
import { SystemInputError } from '../src/harness/engine.js';
import { buildBundles, checkPackages, WORKFLOW_SDK_PACKAGES, REQUIRED_PACKAGES, vercelBundles } from '../src/harness/engines/vercel-workflow/bundles.js';
import { vercelConfigNamed } from '../src/harness/engines/vercel-workflow/config.js';
import { vercelWorkflowSystem } from '../src/harness/engines/vercel-workflow/engine.js';
import { vercelTier } from '../src/harness/engines/vercel-workflow/tier.js';
import { liveChildCount } from '../src/harness/process/processes.js';
import { runSchedule } from '../src/harness/session.js';
import { lanternScenario, loadScenarioFile, PROJECT_ROOT } from '../src/model/load.js';
import { fullSuiteDescribe, fullSuiteTest } from './suite.js';

const ONE_REFUND = 'test/fixtures/one-refund.json';
const IVAN = 'scenarios/lantern/T03-ivan-two-orders.json';
const temps = mkdtempSync(join(tmpdir(), 'killpoint-vercel-test-'));
// Built once here, so that the commands run side by side below find them cached instead of each
// building its own (a clean clone has none yet).
beforeAll(() => vercelBundles(), 180_000);
afterAll(() => {
  rmSync(temps, { recursive: true, force: true });
  expect(liveChildCount()).toBe(0);
});

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
  /** What the command left in its temp folder (killpoint's folders), and the processes still running with it. */
  leftFiles: string[];
  leftProcesses: number[];
}

/** The processes whose environment names this temp folder: the command's and whatever it started. */
function processesWithTmp(dir: string): number[] {
  const wanted = Buffer.from(`TMPDIR=${dir}\0`);
  return readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map(Number).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`).includes(wanted);
    } catch {
      return false;
    }
  });
}

/** killpoint's own folders in `tmp` (tsx, which runs the command from a clone, keeps one of its own there). */
const ownFolders = (tmp: string) => readdirSync(tmp).filter((name) => name.startsWith('killpoint-'));

/**
 * What a command left once it is gone: a folder its orphan watcher removes once its owner has
 * ended counts as removed, so the folders are looked at again for a few seconds before they count.
 */
async function settled(tmp: string): Promise<Pick<Ran, 'leftFiles' | 'leftProcesses'>> {
  for (let tries = 0; tries < 50 && ownFolders(tmp).length > 0; tries++) await new Promise((r) => setTimeout(r, 100)); // real clock: waiting on the watcher, another process
  return { leftFiles: ownFolders(tmp), leftProcesses: processesWithTmp(tmp) };
}

/** The command line in a process of its own, with a temp folder of its own; stopped after 120 s as a hung run. */
function killpoint(args: string[]): Promise<Ran> {
  const tmp = mkdtempSync(join(temps, 'cmd-'));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/killpoint.mjs', ...args], { cwd: PROJECT_ROOT, env: { ...process.env, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000); // real clock: the time limit of a hung command
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      void settled(tmp).then((left) => resolve({ status, stdout, stderr, ...left }));
    });
  });
}

fullSuiteDescribe('killpoint check --engine vercel-workflow', () => {
  it("a one-refund task's refund killed in its gap (committed, step_completed not yet written): without keys done twice (exit 1), with keys every check (exit 0), the broken random keys caught (exit 1); Ivan's parallel cancellations with keys killed after the first one's commit: every check (exit 0); nothing left behind by any", async () => {
    const gap = ['--schedule', 'shop-commit[call_refund]'];
    // Side by side: each command is mostly its lives, and they are few.
    const [plain, keyed, random, ivan] = await Promise.all([
      killpoint(['check', ONE_REFUND, '--engine', 'vercel-workflow', '--strategy', 'durable-agent', '--tier', 'process', ...gap]),
      killpoint(['check', ONE_REFUND, '--engine', 'vercel-workflow', '--strategy', 'durable-agent+keys', '--tier', 'process', ...gap]),
      killpoint(['check', ONE_REFUND, '--engine', 'vercel-workflow', '--strategy', 'durable-agent+random-keys', '--tier', 'process', ...gap]),
      killpoint(['check', IVAN, '--engine', 'vercel-workflow', '--strategy', 'durable-agent+keys', '--tier', 'process', '--schedule', 'shop-commit[call_cancel-both_1]']),
    ]);
    for (const r of [plain, keyed, random, ivan]) {
      expect(r.stderr).toBe('');
      expect(r.leftFiles).toEqual([]);
      expect(r.leftProcesses).toEqual([]);
    }
    expect(plain.status).toBe(1);
    expect(plain.stdout).toMatch(/kill schedule: \d+ \(shop-commit\[call_refund\]\)/);
    expect(plain.stdout).toMatch(/done twice/);
    expect(plain.stdout).toMatch(/refund O-7\/L1 committed twice/);
    expect(plain.stdout).toMatch(/life 2 \(recovery 1\)/);
    expect(keyed.status).toBe(0);
    expect(random.status).toBe(1);
    expect(random.stdout).toMatch(/done twice/);
    expect(ivan.status).toBe(0);
    expect(ivan.stdout).toMatch(/life 2 \(recovery 1\)/);
  }, 240_000);
});

describe('the run and its recovery', () => {
  it('a kill right after run_created leaves the one run, which the recovery resumes (no second run), and the answer', async () => {
    // A task of one refund: its life is short.
    const scenario = loadScenarioFile(join(PROJECT_ROOT, 'test', 'fixtures', 'one-refund.json'));
    const tier = vercelTier(vercelConfigNamed('steps')!, 'process');
    const dir = mkdtempSync(join(temps, 'run-'));
    const stateDir = join(dir, 'state');
    tier.prepare(scenario, stateDir);
    const first = await tier.life(scenario, { runDir: dir, stateDir, lifeIndex: 0, killAfter: 0, picks: [] });
    expect(first.record.end).toBe('killed');
    expect(eventIdentities(first.record.events)).toEqual(['run-created']);
    const runsAfterKill = readdirSync(join(stateDir, 'world', 'runs'));
    expect(runsAfterKill).toHaveLength(1);
    const second = await tier.life(scenario, { runDir: dir, stateDir, lifeIndex: 1, killAfter: null, picks: [] });
    expect(second.record.end).toBe('finished');
    // The recovery does not create a run: it invokes the one there.
    expect(second.record.events[0]!.kind).toBe('run-started');
    expect(readdirSync(join(stateDir, 'world', 'runs'))).toEqual(runsAfterKill);
    expect(tier.stores(scenario, stateDir).delivered).toHaveLength(1);
  }, 60_000);

  fullSuiteTest("Ivan's parallel calls run in the order the picks choose, the same order again for the same picks", async () => {
    const system = vercelWorkflowSystem('steps')!;
    const ivan = lanternScenario('T03');
    const order = (events: { kind: string }[]) => eventIdentities(events as never).filter((id) => id.startsWith('tool-start'));
    const run = (picks: number[]) => runSchedule(system, ivan, { kills: [], interleaving: picks });
    const [a, b, c] = await Promise.all([run([]), run([]), run([1, 1])]);
    expect(a.pickWidths).toEqual([2, 2]);
    expect(JSON.stringify(a.lives[0]!.events)).toBe(JSON.stringify(b.lives[0]!.events));
    expect(order(a.lives[0]!.events).slice(1)).toEqual(['tool-start[call_get-orders_1]', 'tool-start[call_get-orders_2]', 'tool-start[call_cancel-both_1]', 'tool-start[call_cancel-both_2]']);
    expect(order(c.lives[0]!.events).slice(1)).toEqual(['tool-start[call_get-orders_2]', 'tool-start[call_get-orders_1]', 'tool-start[call_cancel-both_2]', 'tool-start[call_cancel-both_1]']);
    expect(findKillPoint(c.lives[0]!.events, 'shop-commit[call_cancel-both_2]')).toBeLessThan(findKillPoint(c.lives[0]!.events, 'shop-commit[call_cancel-both_1]')!);
  }, 60_000);
});

describe('bad input', () => {
  it('a package of the SDK missing is named, with the command that installs it', () => {
    expect(() => checkPackages(['workflow', '@workflow/no-such-package'])).toThrow(SystemInputError);
    expect(() => checkPackages(['workflow', '@workflow/no-such-package'])).toThrow(/missing @workflow\/no-such-package.*npm install --save-dev @workflow\/no-such-package/);
  });

  // A user's sign-up with no model (workflow 4.2.4, as the SDK's examples pin it) was refused for
  // lacking @workflow/ai and ai, which only killpoint's own DurableAgent loads; @workflow/ai 5 also
  // refuses that SDK as its peer, so no install could satisfy the check.
  it("a workflow of one's own needs the SDK alone, not the packages of killpoint's own DurableAgent", () => {
    const withoutTheAgentsPackages = (pkg: string) => (pkg === '@workflow/ai' || pkg === 'ai' ? null : '4.2.4');
    expect(() => checkPackages(WORKFLOW_SDK_PACKAGES, withoutTheAgentsPackages)).not.toThrow();
    expect(() => checkPackages(REQUIRED_PACKAGES, withoutTheAgentsPackages)).toThrow(/missing @workflow\/ai, ai/);
  });

  it('a workflow that fails to build is named, and its build leaves nothing', async () => {
    const project = mkdtempSync(join(PROJECT_ROOT, 'tmp', 'vercel-broken-'));
    try {
      mkdirSync(join(project, 'workflow'));
      const source = join(project, 'workflow', 'agent.ts');
      writeFileSync(source, "export async function agentWorkflow() {\n  'use workflow';\n  return (;\n}\n");
      const cache = join(project, 'cache');
      const built = buildBundles(source, cache);
      await expect(built).rejects.toThrow(SystemInputError);
      await expect(built).rejects.toThrow(/agent\.ts failed to build/);
      expect(readdirSync(cache)).toEqual([]);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  }, 60_000);
});
