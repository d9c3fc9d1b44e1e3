// Checking a scenario under an engine's system from code (killpoint's own runner, LangGraph, ...):
// the same exploration, checks and report as `killpoint check`, returned as a value.

import { formatExploration, formatFailure, type CaseSource } from '../report/text.js';
import { killPointIdentity } from '../check/kill-points.js';
import type { Scenario } from '../../model/scenario.js';
import { loadScenarioFile } from '../../model/load.js';
import { DEFAULT_ENGINE, engineNamed, engineNames } from '../registry.js';
import { explore, judgeCase, mustFinish, type Exploration, type JudgedCase } from '../search/explore.js';
import { mustLandEveryKill } from '../search/schedule-bounds.js';
import type { SystemUnderTest } from '../engine.js';
import { runSchedule } from '../session.js';
import { minimalOf, type MinimalFailure } from './check-agent.js';

export interface CheckScenarioOptions {
  /** A scenario file (named in the replay command), or a scenario already loaded. */
  scenario: string | Scenario;
  /** A registered engine: "scripted" (default), "langgraph", ... */
  engine?: string;
  /** The engine's system, e.g. "journal+keys" or "react/sync". */
  strategy: string;
  kills?: 1 | 2;
  /** Most interleavings of parallel calls explored; above it a seeded sample. Default 32. */
  interleavingBound?: number;
  /** Seeds that sample. Default 1. */
  seed?: number;
  concurrency?: number;
}

export interface ScenarioCheck {
  ok: boolean;
  schedulesExplored: number;
  report: string;
  minimal: MinimalFailure | null;
  exploration: Exploration;
}

interface ScenarioSetUp {
  system: SystemUnderTest;
  scenario: Scenario;
  source: CaseSource;
}

function setUp(options: Pick<CheckScenarioOptions, 'scenario' | 'engine' | 'strategy'>): ScenarioSetUp {
  const engineName = options.engine ?? DEFAULT_ENGINE;
  const engine = engineNamed(engineName);
  if (engine === undefined) throw new TypeError(`killpoint: engine: expected one of ${engineNames().join(', ')}, got ${JSON.stringify(engineName)}`);
  const system = engine.system(options.strategy);
  if (system === undefined) throw new TypeError(`killpoint: strategy: expected one of ${engine.systemNames.join(', ')} for engine ${engine.name}, got ${JSON.stringify(options.strategy)}`);
  const scenario = typeof options.scenario === 'string' ? loadScenarioFile(options.scenario) : options.scenario;
  const source: CaseSource = { kind: 'scenario-file', path: typeof options.scenario === 'string' ? options.scenario : `${scenario.id}.json` };
  return { system, scenario, source };
}

export async function checkScenario(options: CheckScenarioOptions): Promise<ScenarioCheck> {
  const { system, scenario, source } = setUp(options);
  const kills = options.kills ?? 1;
  if (kills !== 1 && kills !== 2) throw new TypeError(`killpoint: kills: expected 1 or 2, got ${String(kills)}`);
  const exploration = await explore(scenario, system, { kills, interleavingBound: options.interleavingBound ?? 32, seed: options.seed ?? 1 }, { concurrency: options.concurrency ?? 2 });
  const m = exploration.minimal;
  return {
    ok: exploration.brokenPromises.length === 0,
    schedulesExplored: exploration.schedulesExplored,
    report: formatExploration(exploration, source),
    minimal: m === null ? null : minimalOf(m, source),
    exploration,
  };
}

export interface ScenarioScheduleCheck {
  ok: boolean;
  report: string;
  failure: MinimalFailure;
  judged: JudgedCase;
}

/**
 * One kill schedule of a scenario under an engine's system (kill points by index, one per life;
 * the interleaving picks of parallel calls, default the first order), judged.
 */
export async function checkScenarioSchedule(options: Pick<CheckScenarioOptions, 'scenario' | 'engine' | 'strategy'>, kills: readonly number[], interleaving: readonly number[] = []): Promise<ScenarioScheduleCheck> {
  if (!Array.isArray(kills) || kills.length === 0 || !kills.every((k) => Number.isInteger(k) && k >= -1)) {
    throw new TypeError(`killpoint: kills: expected kill points, integers >= -1, one per life, got ${JSON.stringify(kills)}`);
  }
  if (!Array.isArray(interleaving) || !interleaving.every((p) => Number.isInteger(p) && p >= 0)) {
    throw new TypeError(`killpoint: interleaving: expected picks, integers >= 0, got ${JSON.stringify(interleaving)}`);
  }
  const { system, scenario, source } = setUp(options);
  const judged = await judgeCase(scenario, system, { kills: [...kills], interleaving: [...interleaving] });
  // Judged against a run that finished, at kill points that landed: else it proves nothing.
  mustFinish(judged.baseline, system);
  mustLandEveryKill(judged.outcome, kills, 'kills');
  return { ok: judged.broken.length === 0, report: formatFailure({ judged, source }), failure: minimalOf(judged, source), judged };
}

/** The kill points of a scenario's run never killed under the system (default order): -1 (before anything) and each event, with its identity. */
export async function scenarioKillPoints(options: Pick<CheckScenarioOptions, 'scenario' | 'engine' | 'strategy'>): Promise<{ index: number; identity: string }[]> {
  const { system, scenario } = setUp(options);
  const baseline = await runSchedule(system, scenario, { kills: [], interleaving: [] });
  mustFinish(baseline, system);
  const events = baseline.lives[0]!.events;
  return [-1, ...events.map((_, i) => i)].map((index) => ({ index, identity: killPointIdentity(events, index) }));
}
