// Mastra as an engine: the bundled scenarios run unchanged as a real Mastra workflow (@mastra/core,
// pinned), each model call and each tool call a step (workflow.ts), its snapshots in @mastra/libsql
// on a file in the run's folder, each life a child process killed with SIGKILL right after its
// kill point, each recovery a fresh process that restarts the run as Mastra does (recovery.ts). Mastra
// needs Node 22.13 or later: on an older Node, asking for one of its systems is bad input.
// A user's own workflow (--mastra) runs as processes too (module/). Nothing of Mastra is imported
// here: its child loads it.
//
// Every system is held to every check: a durable workflow is one a kill does not make do a write
// twice. When Mastra persists decides which it keeps: a step's result is in the snapshot after the
// step returns, so nothing recorded is lost and the conversation stays valid, but restart()
// resumes at the step the snapshot says is active, which is the step that ran last until the next
// one is marked running. A kill after a write's commit and before the next step starts runs the
// write's step again, even after its result was persisted: without keys, `check` fails there.
// With keys the repeat is answered from the key table.

import { CHECK_NAMES } from '../../check/checks.js';
import { SCENARIO_EVENT_KINDS } from '../../check/events.js';
import { STEP_RECORDED } from '../../check/event-kinds.js';
import type { Engine, SystemOptions, SystemUnderTest } from '../../engine.js';
import { processSystem, systemsByName } from '../../process/process-system.js';
import { allMastraConfigs, mastraConfigNamed, type MastraConfig } from './config.js';
import { MASTRA_EVENT_KINDS } from './event-kinds.js';
import { requireMastraNode } from './node-version.js';
import { mastraTier } from './tier.js';
import { mastraModuleEngine } from './module/module-engine.js';
import { mastraModuleSystemNamed } from './module/system.js';

/** Every kind the lives emit beyond the scenario's: each snapshot persisted, each step's record. */
const EVENT_KINDS = [...MASTRA_EVENT_KINDS, STEP_RECORDED];

/** The kinds of event a life can be killed right after: the scenario's, and the snapshots. */
const KILL_POINTS = [...SCENARIO_EVENT_KINDS, ...EVENT_KINDS.map((k) => k.kind)];

function summaryOf(c: MastraConfig): string {
  const keys = c.keys === 'none' ? 'no keys' : 'keys run id + tool call id';
  const end = c.endsBy === 'bail' ? "; FINDING: the final answer's step ends the run with bail(), a run killed after its snapshot is never restarted" : '';
  return `Mastra workflow on libSQL: model and tool calls as steps, ${keys}${end}`;
}

const bundledSystems = systemsByName((name) => {
  const config = mastraConfigNamed(name);
  if (config === undefined) return undefined;
  return processSystem({ engine: 'mastra', name, summary: summaryOf(config), promised: CHECK_NAMES, killPoints: KILL_POINTS, tier: mastraTier(config) });
});

/** The Mastra system of this name, or undefined; bad input on a Node older than Mastra needs. */
export function mastraSystem(name: string, _options: SystemOptions = {}): SystemUnderTest | undefined {
  if (mastraConfigNamed(name) === undefined) return mastraModuleSystemNamed(name);
  requireMastraNode();
  return bundledSystems(name);
}

export const mastraEngine: Engine = {
  name: 'mastra',
  summary: 'Mastra workflows with snapshots in libSQL (Node 22.13 or later), each life a process killed with SIGKILL, recovered by the run\'s restart()',
  systemNames: allMastraConfigs().map((c) => c.name),
  defaultSystems: allMastraConfigs().filter((c) => !c.finding).map((c) => c.name),
  system: mastraSystem,
  eventKinds: EVENT_KINDS,
  module: mastraModuleEngine,
};
