// Checking a user's own LangGraph graph from code, unchanged: its module builds the graph with
// killpoint's checkpointer and reads back its effects; killpoint runs it on its input, kills it at
// every kill point and judges each recovery against the run never killed. The same exploration,
// checks and report as `killpoint check --langgraph`, returned as a value.

import { killPointIdentity } from '../check/kill-points.js';
import { formatExploration, formatFailure, type CaseSource } from '../report/text.js';
import { explore, judgeCase, mustFinish } from '../search/explore.js';
import { mustLandEveryKill } from '../search/schedule-bounds.js';
import { runSchedule } from '../session.js';
import type { Scenario } from '../../model/scenario.js';
import type { SystemUnderTest } from '../engine.js';
import { langGraphModuleSpec, langGraphModuleSystem } from '../engines/langgraph/module/system.js';
import { minimalOf } from './check-agent.js';
import type { ScenarioCheck, ScenarioScheduleCheck } from './check-scenario.js';

export interface CheckLangGraphOptions {
  /** The module that exports createGraph(ctx) and readEffects(ctx), from the current folder. */
  module: string;
  /** The graph's input for invoke, as a value; or `inputFile`, a JSON file holding it (named in replay commands). */
  input?: unknown;
  inputFile?: string;
  /** Other names for the two exports. */
  graphExport?: string;
  effectsExport?: string;
  /** A file of the model's recorded replies: recorded by the first run never killed when missing, replayed in every life when present. */
  cassette?: string;
  kills?: 1 | 2;
  /** Most interleavings of parallel tool calls explored; above it a seeded sample. Default 32. */
  interleavingBound?: number;
  seed?: number;
  concurrency?: number;
}

type GraphTarget = Pick<CheckLangGraphOptions, 'module' | 'input' | 'inputFile' | 'graphExport' | 'effectsExport' | 'cassette'>;

function setUp(options: GraphTarget): { system: SystemUnderTest; task: Scenario; source: CaseSource } {
  if (typeof options !== 'object' || options === null || typeof options.module !== 'string' || options.module === '') throw new TypeError('killpoint: module: expected the path of the module that exports createGraph(ctx)');
  if (options.input === undefined && options.inputFile === undefined) throw new TypeError("killpoint: input: expected the graph's input for invoke (or inputFile, a JSON file)");
  const system = langGraphModuleSystem(langGraphModuleSpec(options));
  return { system, task: system.ownTask!, source: { kind: 'own-task' } };
}

/** Every kill point of the graph's run (and of its recoveries, with kills: 2), judged against a run never killed. */
export async function checkLangGraph(options: CheckLangGraphOptions): Promise<ScenarioCheck> {
  const kills = options.kills ?? 1;
  if (kills !== 1 && kills !== 2) throw new TypeError(`killpoint: kills: expected 1 or 2, got ${String(kills)}`);
  const { system, task, source } = setUp(options);
  const exploration = await explore(task, system, { kills, interleavingBound: options.interleavingBound ?? 32, seed: options.seed ?? 1 }, { concurrency: options.concurrency ?? 2 });
  const m = exploration.minimal;
  return {
    ok: exploration.brokenPromises.length === 0,
    schedulesExplored: exploration.schedulesExplored,
    report: formatExploration(exploration, source),
    minimal: m === null ? null : minimalOf(m, source),
    exploration,
  };
}

/** One kill schedule of the graph (kill points by index, one per life; interleaving picks), judged. */
export async function checkLangGraphSchedule(options: GraphTarget, kills: readonly number[], interleaving: readonly number[] = []): Promise<ScenarioScheduleCheck> {
  if (!Array.isArray(kills) || kills.length === 0 || !kills.every((k) => Number.isInteger(k) && k >= -1)) {
    throw new TypeError(`killpoint: kills: expected kill points, integers >= -1, one per life, got ${JSON.stringify(kills)}`);
  }
  const { system, task, source } = setUp(options);
  const judged = await judgeCase(task, system, { kills: [...kills], interleaving: [...interleaving] });
  mustFinish(judged.baseline, system);
  mustLandEveryKill(judged.outcome, kills, 'kills');
  return { ok: judged.broken.length === 0, report: formatFailure({ judged, source }), failure: minimalOf(judged, source), judged };
}

/** The kill points of the graph's run never killed: -1 (before anything) and each event, with its identity. */
export async function langGraphKillPoints(options: GraphTarget): Promise<{ index: number; identity: string }[]> {
  const { system, task } = setUp(options);
  const baseline = await runSchedule(system, task, { kills: [], interleaving: [] });
  mustFinish(baseline, system);
  const events = baseline.lives[0]?.events ?? [];
  return [-1, ...events.map((_, i) => i)].map((index) => ({ index, identity: killPointIdentity(events, index) }));
}
