// Checking a scenario under an engine's system from code (killpoint's own runner, LangGraph, ...):
// the same exploration, checks and report as `killpoint check`, returned as a value.

import { formatExploration, replayCommand, differences, type CaseSource } from '../cli/report.js';
import { killPointIdentity } from '../check/kill-points.js';
import type { Scenario } from '../model/scenario.js';
import { loadScenarioFile } from '../model/load.js';
import { DEFAULT_ENGINE, engineNamed, engineNames } from '../engines/registry.js';
import { exploreAsync, type Exploration } from '../search/explore.js';
import type { MinimalFailure } from './check-agent.js';

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

export async function checkScenario(options: CheckScenarioOptions): Promise<ScenarioCheck> {
  const engineName = options.engine ?? DEFAULT_ENGINE;
  const engine = engineNamed(engineName);
  if (engine === undefined) throw new TypeError(`killpoint: engine: expected one of ${engineNames().join(', ')}, got ${JSON.stringify(engineName)}`);
  const system = engine.system(options.strategy);
  if (system === undefined) throw new TypeError(`killpoint: strategy: expected one of ${engine.systemNames.join(', ')} for engine ${engine.name}, got ${JSON.stringify(options.strategy)}`);
  const scenario = typeof options.scenario === 'string' ? loadScenarioFile(options.scenario) : options.scenario;
  const kills = options.kills ?? 1;
  if (kills !== 1 && kills !== 2) throw new TypeError(`killpoint: kills: expected 1 or 2, got ${String(kills)}`);
  const source: CaseSource = { kind: 'scenario-file', path: typeof options.scenario === 'string' ? options.scenario : `${scenario.id}.json` };
  const exploration = await exploreAsync(scenario, system, { kills, interleavingBound: options.interleavingBound ?? 32, seed: options.seed ?? 1 }, { concurrency: options.concurrency ?? 2 });
  const m = exploration.minimal;
  return {
    ok: exploration.brokenPromises.length === 0,
    schedulesExplored: exploration.schedulesExplored,
    report: formatExploration(exploration, source),
    minimal: m === null ? null : {
      kills: m.schedule.kills,
      killAt: m.schedule.kills.map((k, life) => killPointIdentity(m.outcome.lives[life]?.events ?? [], k)),
      failed: m.failed,
      differences: differences(m.verdict),
      replay: replayCommand(source, m),
    },
    exploration,
  };
}
