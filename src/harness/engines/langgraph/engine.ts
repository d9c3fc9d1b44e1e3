// LangGraph.js as an engine: real LangGraph agents (two graph shapes, three durability modes, with
// and without keys) on the embedded SQLite checkpointer, on the bundled scenarios unchanged (the
// scenario's scripted model as a LangChain chat model, the shop's tools as LangChain tools). Each
// life runs inside killpoint's process and is cut off from its stores right after its kill point
// (src/harness/in-process/), or, with --tier process, is a child process killed with SIGKILL there;
// `npm run differential:in-process` proves the two give the same verdict at every kill point.
//
// What each system promises follows from when LangGraph saves:
// - async and sync save a task's results as soon as it ends, and every step's checkpoint: nothing
//   saved is lost, the conversation stays valid; but a kill between a write's commit and the save
//   of its task's writes runs the task again (its known gap, like a journal's). With keys the
//   repeat is answered from the key table: every check.
// - exit saves nothing until the run ends: a recovery starts over (like restart), so all it can
//   promise is a valid conversation, no half answer and one answer. Keys do not add "no write done
//   twice": they answer a repeated call from the key table, but a restart reads the world its first
//   run changed and may take another path, whose writes are other calls with other keys (found by
//   the sweep: Tess's task, T11, killed after the confirmation email, sends it again from the
//   already-cancelled branch).
// - the next-only resume (broken) promises what the sound resume does, and breaks it.

import { CHECK_NAMES, type CheckName } from '../../check/checks.js';
import { SCENARIO_EVENT_KINDS } from '../../check/events.js';
import type { Engine, SystemUnderTest } from '../../engine.js';
import { LANGGRAPH_EVENT_KINDS } from './event-kinds.js';
import { allLangGraphConfigs, APPROVAL_SHAPE, langGraphConfigNamed, langGraphSystemName, type LangGraphConfig } from './config.js';
import { processSystem, systemsByTier } from '../../process/process-system.js';
import { DEFAULT_LANGGRAPH_TIER, langGraphTier, type LangGraphLivesIn } from './run.js';
import { langGraphModuleSystemNamed } from './module/system.js';
import { langGraphModuleEngine } from './module/module-engine.js';

function promises(c: LangGraphConfig): readonly CheckName[] {
  if (c.durability === 'exit') return ['invalid-conversation', 'half-answer', 'answer-twice'];
  return c.keys ? CHECK_NAMES : ['lost-write', 'invalid-conversation', 'half-answer', 'answer-twice'];
}

/** The kinds of event a life can be killed right after: the scenario's, and the checkpointer's saves. */
const KILL_POINTS = [...SCENARIO_EVENT_KINDS, ...LANGGRAPH_EVENT_KINDS.map((k) => k.kind)];

const SHAPE_SUMMARIES: Record<LangGraphConfig['shape'], string> = {
  toolnode: 'StateGraph + ToolNode',
  react: 'createReactAgent v2',
  approval: "createReactAgent v2's graph with a person approving each refund (interrupt() before it; every refund approved)",
};

function summaryOf(c: LangGraphConfig): string {
  return `LangGraph.js ${SHAPE_SUMMARIES[c.shape]}, durability "${c.durability}"${c.keys ? ', keys thread id + tool call id' : ''}${c.resume === 'next-only' ? ' (BROKEN: a recovery that reads an empty next as finished)' : ''}`;
}


function bundledSystem(name: string, livesIn: LangGraphLivesIn): SystemUnderTest | undefined {
  const config = langGraphConfigNamed(name);
  // A user's own graph is named by its module and input, as after --langgraph.
  if (config === undefined) return langGraphModuleSystemNamed(name, livesIn);
  const selectorTail = livesIn === DEFAULT_LANGGRAPH_TIER ? [] : ['--tier', livesIn];
  return processSystem({ engine: 'langgraph', name, summary: summaryOf(config), promised: promises(config), killPoints: KILL_POINTS, tier: langGraphTier(config, name, undefined, livesIn), runsIn: livesIn, selectorTail });
}

/** The LangGraph system of this name (see config.ts), or undefined; its lives in process unless `tier` says 'process'. */
export const langGraphSystem = systemsByTier(bundledSystem, DEFAULT_LANGGRAPH_TIER);

export const langGraphEngine: Engine = {
  name: 'langgraph',
  summary: 'LangGraph.js agents on the SQLite checkpointer, each life run in process and cut off from its stores at the kill (--tier process: a process killed with SIGKILL)',
  systemNames: allLangGraphConfigs().map(langGraphSystemName),
  // The approval shape is asked for by name: it is react/sync with a person in the loop.
  defaultSystems: allLangGraphConfigs().filter((c) => c.resume === 'pending-writes' && c.shape !== APPROVAL_SHAPE).map(langGraphSystemName),
  system: langGraphSystem,
  tiers: [DEFAULT_LANGGRAPH_TIER, 'process'],
  eventKinds: LANGGRAPH_EVENT_KINDS,
  module: langGraphModuleEngine,
};
