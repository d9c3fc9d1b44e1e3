// Checking a user's own module from code, unchanged (a LangGraph graph, a DBOS workflow, a Restate
// service, a Vercel workflow): killpoint runs it on its input, kills it at every kill point and
// judges each recovery against the run never killed. The same exploration, checks and report as
// `killpoint check --langgraph|--dbos|--restate|--vercel-workflow`, returned as a value.

import { killPointIdentity } from '../check/kill-points.js';
import { formatExploration, formatFailure, type CaseSource } from '../report/text.js';
import { caseFails, explore, explorationFails, judgeCase, mustFinish } from '../search/explore.js';
import { mustLandEveryKill } from '../search/schedule-bounds.js';
import { runSchedule } from '../session.js';
import type { ModuleEngineOptions, SystemUnderTest } from '../engine.js';
import { moduleEngines } from '../registry.js';
import { ownModuleSystem } from '../user-module/module-engine.js';
import { ownTaskOf } from '../user-module/target.js';
import { minimalOf } from './check-agent.js';
import type { ScenarioCheck, ScenarioScheduleCheck } from './check-scenario.js';

interface ModuleTarget {
  /** The module, from the current folder. */
  module: string;
  /** Its input, as a value; or `inputFile`, a JSON file holding it (named in replay commands). */
  input?: unknown;
  inputFile?: string;
  effectsExport?: string;
  /** The outside world's turns, one per wait of the run, in order (a person's answers); or `resumeFile`, a JSON file holding the list. Engines that cannot see their waits refuse them. */
  resume?: unknown[];
  resumeFile?: string;
  /** With resume: a turn whose delivery a kill may have cut is delivered again to the recovery, as a web server behind an Approve button does when it saw no acknowledgement; the report says what the second delivery did. */
  redeliver?: boolean;
  /**
   * The agent's HTTP traffic, kept in your repository (LangGraph, DBOS, Restate and Vercel Workflow modules): when the file is
   * missing, one run never killed goes to the real endpoints and writes it; when it is there, every
   * life is answered from it, and the writes the services committed are the module's effects.
   */
  cassette?: string;
  /** Write the cassette again, even where it is there. */
  record?: boolean;
  /** URL prefixes of model endpoints beside the known APIs (OpenAI, Anthropic, Google, the AI Gateway). */
  modelUrl?: string[];
  /** Headers that carry an idempotency key beside Idempotency-Key and its usual variants. */
  idempotencyHeader?: string[];
}

interface ExploreChoices {
  kills?: 1 | 2;
  /** Most interleavings of parallel calls explored; above it a seeded sample. Default 32. */
  interleavingBound?: number;
  seed?: number;
  concurrency?: number;
}

/** A LangGraph graph of your own: the module exports createGraph(ctx) and readEffects(ctx). */
export interface LangGraphTarget extends ModuleTarget {
  graphExport?: string;
}

/** A DBOS workflow of your own: the module exports createWorkflow(ctx) and readEffects(ctx). */
export interface DbosTarget extends ModuleTarget {
  workflowExport?: string;
}

/** A Restate service of your own: the module exports createService(ctx) and readEffects(ctx). */
export interface RestateTarget extends ModuleTarget {
  serviceExport?: string;
  /** The handler invoked with the input; by default the service's only one. */
  handler?: string;
}

/** A Vercel workflow of your own: the module holds a "use workflow" function and exports readEffects(ctx); its steps find their data folder in KILLPOINT_DATA_DIR. */
export interface VercelWorkflowTarget extends ModuleTarget {
  /** The workflow started with the input; by default the module's only one. */
  workflowExport?: string;
}

export type CheckLangGraphOptions = LangGraphTarget & ExploreChoices;
export type CheckVercelWorkflowOptions = VercelWorkflowTarget & ExploreChoices;
export type CheckDbosOptions = DbosTarget & ExploreChoices;
export type CheckRestateOptions = RestateTarget & ExploreChoices;

/** Any engine's module of your own, by the engine's name: `{ engine: 'langgraph', module, input }` and the engine's own options. */
export interface ModuleCheckTarget extends ModuleTarget {
  /** A registered engine that checks modules: langgraph, dbos, restate, vercel-workflow, ... */
  engine: string;
  [engineOption: string]: unknown;
}

export type CheckOptions = ModuleCheckTarget & ExploreChoices;

/** The system of a module of the user's own, by its engine's declaration (registry.ts: moduleEngines). */
function systemOf(options: ModuleCheckTarget): SystemUnderTest {
  const known = moduleEngines();
  const found = known.find((m) => m.engine === options?.engine);
  if (found === undefined) throw new TypeError(`killpoint: engine: expected one of ${known.map((m) => m.engine).join(', ')} (the engines that check a module of your own), got ${JSON.stringify(options?.engine)}`);
  if (typeof options.module !== 'string' || options.module === '') throw new TypeError(`killpoint: module: expected the path of the module that exports ${found.module.exports}`);
  if (options.input === undefined && options.inputFile === undefined) throw new TypeError("killpoint: input: expected the module's input (or inputFile, a JSON file)");
  const { engine: _engine, ...given } = options;
  return ownModuleSystem(found.module, given as ModuleEngineOptions, undefined, known.map((m) => m.module));
}

const SOURCE: CaseSource = { kind: 'own-task' };

async function exploreModule(system: SystemUnderTest, options: ExploreChoices): Promise<ScenarioCheck> {
  const kills = options.kills ?? 1;
  if (kills !== 1 && kills !== 2) throw new TypeError(`killpoint: kills: expected 1 or 2, got ${String(kills)}`);
  const exploration = await explore(await ownTaskOf(system), system, { kills, interleavingBound: options.interleavingBound ?? 32, seed: options.seed ?? 1 }, { concurrency: options.concurrency ?? 2 });
  const m = exploration.minimal;
  return { ok: !explorationFails(exploration), schedulesExplored: exploration.schedulesExplored, report: formatExploration(exploration, SOURCE), minimal: m === null ? null : minimalOf(m, SOURCE), exploration };
}

async function judgeModuleSchedule(system: SystemUnderTest, kills: readonly number[], interleaving: readonly number[]): Promise<ScenarioScheduleCheck> {
  if (!Array.isArray(kills) || kills.length === 0 || !kills.every((k) => Number.isInteger(k) && k >= -1)) {
    throw new TypeError(`killpoint: kills: expected kill points, integers >= -1, one per life, got ${JSON.stringify(kills)}`);
  }
  const judged = await judgeCase(await ownTaskOf(system), system, { kills: [...kills], interleaving: [...interleaving] });
  mustFinish(judged.baseline, system);
  mustLandEveryKill(judged.outcome, kills, 'kills');
  return { ok: !caseFails(judged), report: formatFailure({ judged, source: SOURCE }), failure: minimalOf(judged, SOURCE), judged };
}

async function moduleKillPoints(system: SystemUnderTest): Promise<{ index: number; identity: string }[]> {
  const baseline = await runSchedule(system, await ownTaskOf(system), { kills: [], interleaving: [] });
  mustFinish(baseline, system);
  const events = baseline.lives[0]?.events ?? [];
  return [-1, ...events.map((_, i) => i)].map((index) => ({ index, identity: killPointIdentity(events, index) }));
}

/** Every kill point of the module's run (and of its recoveries, with kills: 2), judged against a run never killed. */
export const check = (options: CheckOptions): Promise<ScenarioCheck> => exploreModule(systemOf(options), options);
/** One kill schedule of the module's run (kill points by index, one per life; interleaving picks), judged. */
export const checkSchedule = (options: ModuleCheckTarget, kills: readonly number[], interleaving: readonly number[] = []): Promise<ScenarioScheduleCheck> => judgeModuleSchedule(systemOf(options), kills, interleaving);
/** The kill points of the module's run never killed: -1 (before anything) and each event, with its identity. */
export const killPointsOf = (options: ModuleCheckTarget): Promise<{ index: number; identity: string }[]> => moduleKillPoints(systemOf(options));

// Each engine's own names for the same three, typed with its options.
export const checkLangGraph = (options: CheckLangGraphOptions): Promise<ScenarioCheck> => check({ ...options, engine: 'langgraph' });
export const checkLangGraphSchedule = (options: LangGraphTarget, kills: readonly number[], interleaving: readonly number[] = []): Promise<ScenarioScheduleCheck> => checkSchedule({ ...options, engine: 'langgraph' }, kills, interleaving);
export const langGraphKillPoints = (options: LangGraphTarget): Promise<{ index: number; identity: string }[]> => killPointsOf({ ...options, engine: 'langgraph' });

export const checkDbos = (options: CheckDbosOptions): Promise<ScenarioCheck> => check({ ...options, engine: 'dbos' });
export const checkDbosSchedule = (options: DbosTarget, kills: readonly number[], interleaving: readonly number[] = []): Promise<ScenarioScheduleCheck> => checkSchedule({ ...options, engine: 'dbos' }, kills, interleaving);
export const dbosKillPoints = (options: DbosTarget): Promise<{ index: number; identity: string }[]> => killPointsOf({ ...options, engine: 'dbos' });

export const checkRestate = (options: CheckRestateOptions): Promise<ScenarioCheck> => check({ ...options, engine: 'restate' });
export const checkRestateSchedule = (options: RestateTarget, kills: readonly number[], interleaving: readonly number[] = []): Promise<ScenarioScheduleCheck> => checkSchedule({ ...options, engine: 'restate' }, kills, interleaving);
export const restateKillPoints = (options: RestateTarget): Promise<{ index: number; identity: string }[]> => killPointsOf({ ...options, engine: 'restate' });

export const checkVercelWorkflow = (options: CheckVercelWorkflowOptions): Promise<ScenarioCheck> => check({ ...options, engine: 'vercel-workflow' });
export const checkVercelWorkflowSchedule = (options: VercelWorkflowTarget, kills: readonly number[], interleaving: readonly number[] = []): Promise<ScenarioScheduleCheck> => checkSchedule({ ...options, engine: 'vercel-workflow' }, kills, interleaving);
export const vercelWorkflowKillPoints = (options: VercelWorkflowTarget): Promise<{ index: number; identity: string }[]> => killPointsOf({ ...options, engine: 'vercel-workflow' });
