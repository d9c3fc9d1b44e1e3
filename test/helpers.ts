import { afterEach, beforeEach, expect, vi } from 'vitest';
// Small helpers shared by the example-based tests.

import type { RunEvent } from '../src/harness/check/events.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { noKills, type RunOutcome } from '../src/harness/check/outcome.js';
import type { AnyStrategyName } from '../src/harness/engines/scripted/strategies.js';
import { judge, type Verdict } from '../src/harness/check/verdict.js';
import { parseScenario, ScenarioError, type Scenario } from '../src/model/scenario.js';
import { main } from '../src/harness/cli/main.js';
import { failedChecks, type CheckName } from '../src/harness/check/checks.js';
import { eventIdentities } from '../src/harness/check/kill-points.js';
import type { SystemUnderTest } from '../src/harness/engine.js';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { inPool } from '../src/harness/process/pool.js';
import { OWNER_TAG } from '../src/harness/process/owner.js';
import { tempRoot } from '../src/harness/process/owned-temp-dirs.js';
import { liveChildCount } from '../src/harness/process/processes.js';
import { runSchedule } from '../src/harness/session.js';
import { hasEnvironmentEntry, pidsNow, processesNaming } from '../src/harness/process/process-tree.js';
import { PROJECT_ROOT } from '../src/model/load.js';
import { compareTiers, type TierComparison } from '../src/harness/differential/in-process-vs-process.js';

export function baselineOf(scenario: Scenario, strategy: AnyStrategyName, interleaving: number[] = []): RunOutcome {
  return simulate(scenario, strategy, noKills(interleaving));
}

/** Kills at the given points (one per life) and judges the result against the unkilled run. */
export function killAndJudge(scenario: Scenario, strategy: AnyStrategyName, kills: number[], interleaving: number[] = []): Verdict {
  const baseline = baselineOf(scenario, strategy, interleaving);
  return judge(scenario, simulate(scenario, strategy, { kills, interleaving }), baseline);
}

export function firstEvent(events: RunEvent[], matches: (e: RunEvent) => boolean, what: string): RunEvent {
  const found = events.find(matches);
  if (!found) throw new Error(`no event: ${what}`);
  return found;
}

/** The kill point right after the shop commits the run's first write. */
export function afterFirstCommit(scenario: Scenario, strategy: AnyStrategyName): number {
  return firstEvent(baselineOf(scenario, strategy).lives[0]!.events, (e) => e.kind === 'shop-commit', 'shop-commit').index;
}

/** The kill point halfway through streaming the final answer. */
export function halfwayThroughAnswer(scenario: Scenario, strategy: AnyStrategyName): number {
  const events = baselineOf(scenario, strategy).lives[0]!.events;
  const first = firstEvent(events, (e) => e.kind === 'model-chunk' && e.final === true, 'answer chunk');
  return first.index + Math.floor(first.chunks! / 2) - 1;
}

/**
 * Collects what console.log and console.error print during each test (restored after each), for
 * tests that drive the command line in process.
 */
export function captureConsole(): { lines: string[]; text(): string; clear(): void } {
  const captured = { lines: [] as string[], text: () => captured.lines.join('\n'), clear: () => void (captured.lines.length = 0) };
  beforeEach(() => {
    captured.clear();
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void captured.lines.push(a.join(' ')));
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void captured.lines.push(a.join(' ')));
  });
  afterEach(() => vi.restoreAllMocks());
  return captured;
}

/** Runs the command line in this process and collects what it printed, standard output and errors apart. */
export async function runMain(argv: string[]): Promise<{ status: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  try {
    return { status: await main(argv), out, err };
  } finally {
    vi.restoreAllMocks();
  }
}

/**
 * A check of `args` (a kill that repeats a write) runs in process unless `--tier process` asks for
 * SIGKILL: both end with `status`, `--json` says the tier that ran, and the process tier's replay
 * command is `replay: npx killpoint check <replayArgs> --tier process --schedule ...`.
 */
export async function expectInProcessUnlessAsked(args: string[], status: 0 | 1, replayArgs: string): Promise<void> {
  const inProcess = await runMain([...args, '--json']);
  expect(inProcess.status, inProcess.err.join('\n')).toBe(status);
  expect(JSON.parse(inProcess.out.join('\n'))[0]).toMatchObject({ tier: 'in-process', ok: status === 0, failed: expect.arrayContaining(['done-twice']) });
  const processTier = await runMain([...args, '--tier', 'process']);
  expect(processTier.status, processTier.err.join('\n')).toBe(status);
  expect(processTier.out.join('\n')).toContain(`replay: npx killpoint check ${replayArgs} --tier process --schedule `);
}

/** The error a raw scenario is refused with, as if read from my-task.json (a scenario that loads fails the test). */
export function scenarioErrorOf(raw: unknown): ScenarioError {
  try {
    parseScenario(raw, 'my-task.json');
  } catch (error) {
    if (error instanceof ScenarioError) return error;
    throw error;
  }
  throw new Error('the scenario loaded');
}

/** The kill points with these identities in a run of `system` never killed; each must be there. */
export async function killPointsNamed(system: SystemUnderTest, scenario: Scenario, identities: string[]): Promise<number[]> {
  const ids = eventIdentities((await runSchedule(system, scenario, { kills: [], interleaving: [] })).lives[0]!.events);
  const points = identities.map((id) => ids.indexOf(id));
  expect(points.every((k) => k >= 0), `${identities.join(', ')} among ${ids.join(', ')}`).toBe(true);
  return points;
}

/** A user's module in both tiers: explored by equivalence in process, and by SIGKILL, each schedule from scratch. */
export interface ModuleTiers {
  inProcess: SystemUnderTest;
  sigkillFromScratch: SystemUnderTest;
}

/**
 * The module's own task at the kill points with these identities, in process as a check explores
 * it (every kill point cut, one recovery per distinct state) against SIGKILL from scratch.
 */
export async function compareModuleTiersAt({ inProcess, sigkillFromScratch }: ModuleTiers, identities: string[]): Promise<{ points: number[]; compared: TierComparison }> {
  const points = await killPointsNamed(inProcess, inProcess.ownTask!, identities);
  return { points, compared: await compareTiers(inProcess.ownTask!, inProcess, sigkillFromScratch, { concurrency: 2, killPoints: points, inProcessEvery: true }) };
}

/** A kill point judged from a run from scratch: its index and identity, the verdict and the checks it failed. */
export type JudgedPoint = { k: number; identity: string; verdict: Verdict; failed: readonly CheckName[] };

/** Kill-and-resume runs from scratch of `system` at the given kill points (two at a time), judged against a baseline. */
export async function judgedFromScratch(system: SystemUnderTest, scenario: Scenario, baseline: RunOutcome, points: number[]): Promise<JudgedPoint[]> {
  const ids = eventIdentities(baseline.lives[0]!.events);
  return inPool(points, 2, async (k) => {
    const outcome = await runSchedule(system, scenario, { kills: [k], interleaving: [] });
    const verdict = judge(scenario, outcome, baseline);
    return { k, identity: k < 0 ? 'start' : ids[k]!, verdict, failed: failedChecks({ scenario, outcome, verdict }) };
  });
}

/** What this test process's checks left: children still running, and its temp folders named with `prefix`. */
export function leftByThisProcess(prefix = 'killpoint-'): string[] {
  const folders = readdirSync(tempRoot()).filter((name) => name.startsWith(prefix) && name.includes(OWNER_TAG));
  return [...(liveChildCount() > 0 ? [`${liveChildCount()} children`] : []), ...folders];
}

export interface CommandRan {
  status: number | null;
  stdout: string;
  stderr: string;
  /** What the command left behind once it ended: its processes and temp folders (none expected). */
  left: string[];
}

/** What a process that has ended left: processes started under it, temp folders it owned. */
export function leftBy(pid: number): string[] {
  const processes = pidsNow().filter((p) => hasEnvironmentEntry(p, `KILLPOINT_PROCESS_TREE=${pid}.`, 'prefix') || processesNaming(`pid${pid}.`).includes(p));
  const folders = readdirSync(tempRoot()).filter((name) => name.startsWith('killpoint-') && name.includes(`pid${pid}.`));
  return [...processes.map((p) => `process ${p}`), ...folders.map((f) => `folder ${f}`)];
}

/** The command line in a process of its own, with these variables added; stopped after 120 s as a hung run. */
export function killpointCommand(args: string[], env: Record<string, string> = {}): Promise<CommandRan> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/killpoint.mjs', ...args], { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // real clock: a command that hangs is stopped, and its run reads as hung (no status).
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, left: leftBy(child.pid!) });
    });
  });
}
