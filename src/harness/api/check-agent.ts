// Checking an agent of the user's own, in any language, from code: the agent is the command that
// starts one life (it speaks the kill protocol, for a TypeScript agent through killpoint/agent).
// The same explorer, checks, minimal counterexample and report as `killpoint harness`, returned as
// a value: whether every kill point holds, the report the command line prints, and the minimal
// failing schedule with the one command that replays it.

import { killPointIdentity } from '../check/kill-points.js';
import type { CheckName } from '../check/checks.js';
import type { ExternalHarness } from '../engines/external/external.js';
import { externalSystem, externalTask } from '../engines/external/engine.js';
import { harnessTrafficOf, harnessTrafficWords, type HarnessTrafficOptions } from '../engines/external/traffic-options.js';
import { differences } from '../check/verdict-lines.js';
import { formatExploration, formatFailure, replayCommand, type CaseSource } from '../report/text.js';
import { shellWord } from '../shell-words.js';
import { explore, judgeCase, mustFinish, type Exploration, type JudgedCase } from '../search/explore.js';
import { mustLandEveryKill } from '../search/schedule-bounds.js';
import type { SystemUnderTest } from '../engine.js';
import { runSchedule } from '../session.js';

/** The command that starts one life of the agent: its words, or a command and its arguments. */
export type AgentCommand = readonly string[] | { command: string; args?: readonly string[] };

/**
 * With `cassette`, killpoint plays the agent's HTTP (docs/traffic.md): a Node agent intercepted
 * inside; another through KILLPOINT_PROXY_<NAME> for each `proxy` entry, NAME=URL.
 */
export interface CheckAgentOptions extends HarnessTrafficOptions {
  agent: AgentCommand;
  /** 1: every kill point of the first life; 2: also every kill point of each recovery. Default 1. */
  kills?: 1 | 2;
  /** Lives run side by side. Default 2. */
  concurrency?: number;
  /**
   * A life that runs longer is taken to hang. Default: ten times the longest life of the run never
   * killed plus 5 s (120 s for that run). A recovery that hangs fails its kill point (a verdict,
   * like a crash); a run never killed that hangs stops the check with an error.
   */
  lifeTimeoutMs?: number;
  /** Every kill point even after a recovery hung, each hang at its limit. Default: the search stops after the earliest (Exploration.stoppedAtHang counts what it left out). */
  all?: boolean;
}

export interface MinimalFailure {
  /** The kill points of the earliest failing schedule, by index in each life. */
  kills: number[];
  /** The same kill points by identity, e.g. "shop-commit[step-2]". */
  killAt: string[];
  failed: CheckName[];
  /** What differs from the run never killed, one line each. */
  differences: string[];
  /** The one command that replays it. */
  replay: string;
}

export interface AgentCheck {
  /** Every promised check holds at every kill point explored. */
  ok: boolean;
  /** How many kill schedules were run and judged. */
  schedulesExplored: number;
  /** The report `killpoint harness` prints (with the minimal counterexample when it fails). */
  report: string;
  minimal: MinimalFailure | null;
  exploration: Exploration;
}

export function agentHarness(agent: AgentCommand, lifeTimeoutMs?: number): ExternalHarness {
  const words = Array.isArray(agent) ? [...(agent as readonly string[])] : [(agent as { command: string }).command, ...((agent as { args?: readonly string[] }).args ?? [])];
  if (words.length === 0 || words.some((w) => typeof w !== 'string') || words[0] === '') {
    throw new TypeError('killpoint: agent: expected the command that starts one life, e.g. ["node", "agent.js"]');
  }
  if (lifeTimeoutMs !== undefined && !(Number.isFinite(lifeTimeoutMs) && lifeTimeoutMs > 0)) throw new TypeError(`killpoint: lifeTimeoutMs: expected milliseconds > 0, got ${lifeTimeoutMs}`);
  const [command, ...args] = words as [string, ...string[]];
  return { name: words.map(shellWord).join(' '), command, args, ...(lifeTimeoutMs === undefined ? {} : { lifeTimeoutMs }) };
}

/** A judged case as the minimal failure a caller gets: its kill points, checks, differences and replay. */
export function minimalOf(judged: JudgedCase, source: CaseSource): MinimalFailure {
  return {
    kills: judged.schedule.kills,
    killAt: judged.schedule.kills.map((k, life) => killPointIdentity(judged.outcome.lives[life]?.events ?? [], k)),
    failed: judged.failed,
    differences: differences(judged.verdict),
    replay: replayCommand(source, judged),
  };
}

function setUp(options: CheckAgentOptions): { harness: ExternalHarness; system: SystemUnderTest; source: CaseSource } {
  const plain = agentHarness(options.agent, options.lifeTimeoutMs);
  const traffic = harnessTrafficOf(options, plain.name);
  const harness = traffic === undefined ? plain : { ...plain, traffic };
  return { harness, system: externalSystem(harness), source: { kind: 'harness', command: harness.name, options: harnessTrafficWords(traffic) } };
}

/** Every kill point of the agent (and of its recoveries, with kills: 2), judged against a run never killed. */
export async function checkAgent(options: CheckAgentOptions): Promise<AgentCheck> {
  const kills = options.kills ?? 1;
  if (kills !== 1 && kills !== 2) throw new TypeError(`killpoint: kills: expected 1 or 2, got ${String(kills)}`);
  const concurrency = options.concurrency ?? 2;
  if (!(Number.isInteger(concurrency) && concurrency >= 1)) throw new TypeError(`killpoint: concurrency: expected a whole number >= 1, got ${concurrency}`);
  const { harness, system, source } = setUp(options);
  const exploration = await explore(externalTask(harness), system, { kills, interleavingBound: 1, seed: 1, everyKillPointAfterHang: options.all === true }, { concurrency });
  return {
    ok: exploration.brokenPromises.length === 0,
    schedulesExplored: exploration.schedulesExplored,
    report: formatExploration(exploration, source),
    minimal: exploration.minimal === null ? null : minimalOf(exploration.minimal, source),
    exploration,
  };
}

export interface ScheduleCheck {
  ok: boolean;
  report: string;
  failure: MinimalFailure;
  judged: JudgedCase;
}

/** One kill schedule of the agent (kill points by index, one per life), judged. */
export async function checkAgentSchedule(options: CheckAgentOptions, kills: readonly number[]): Promise<ScheduleCheck> {
  if (!Array.isArray(kills) || kills.length === 0 || !kills.every((k) => Number.isInteger(k) && k >= -1)) {
    throw new TypeError(`killpoint: kills: expected kill points, integers >= -1, one per life, got ${JSON.stringify(kills)}`);
  }
  const { harness, system, source } = setUp(options);
  const judged = await judgeCase(externalTask(harness), system, { kills: [...kills], interleaving: [] });
  // Judged against a run that finished, at kill points that landed: else it proves nothing.
  mustFinish(judged.baseline, system);
  mustLandEveryKill(judged.outcome, kills, 'kills');
  return { ok: judged.broken.length === 0, report: formatFailure({ judged, source }), failure: minimalOf(judged, source), judged };
}

/** The kill points of the agent's run never killed: -1 (before anything) and each event, with its identity. */
export async function agentKillPoints(options: Pick<CheckAgentOptions, 'agent' | 'lifeTimeoutMs'>): Promise<{ index: number; identity: string }[]> {
  const { harness, system } = setUp(options);
  const baseline = await runSchedule(system, externalTask(harness), { kills: [], interleaving: [] });
  mustFinish(baseline, system);
  const events = baseline.lives[0]!.events;
  return [-1, ...events.map((_, i) => i)].map((index) => ({ index, identity: killPointIdentity(events, index) }));
}
