// DBOS as an engine: a real DBOS workflow (@dbos-inc/dbos-sdk, pinned) running the bundled
// scenarios unchanged (the model call a step, each tool call a step), its system database on
// embedded PGlite or on a real Postgres. Each life runs inside killpoint's process, on a pool of
// connections cut at its kill point, and DBOS is shut down and launched again for the recovery
// (in-process-life.ts); with --tier process each life is a child process killed with SIGKILL right
// after its kill point, each recovery a fresh process. Both launch DBOS with the same executor id
// and application version in every life, which is what makes DBOS recover the workflow. `npm run
// differential:in-process` proves the two give the same verdict at every kill point. A user's own
// workflow (--dbos) runs as processes. Nothing of DBOS or PGlite is imported here: DBOS is loaded
// when the first life runs in process, and PGlite when a pglite system first runs.
//
// What each system promises follows from when DBOS records: a step's output is recorded after the
// step returns, so nothing recorded is lost and the conversation stays valid, but a kill between a
// write's commit and its step record runs the step again (the gap). With keys the repeat is
// answered from the key table: every check. A broken variant promises what the mode it imitates
// promises, and breaks it.

import { CHECK_NAMES, type CheckName } from '../../check/checks.js';
import { SCENARIO_EVENT_KINDS } from '../../check/events.js';
import type { Engine, SystemOptions, SystemUnderTest } from '../../engine.js';
import { RESUME_ACCEPTED, STEP_RECORDED } from '../../check/event-kinds.js';
import { DBOS_EVENT_KINDS } from './event-kinds.js';
import { allDbosConfigs, dbosConfigNamed, dbosSystemName, type DbosConfig } from './config.js';
import { DEFAULT_DBOS_TIER, dbosTier, type DbosLivesIn } from './tier.js';
import { holdingBackend } from './backend.js';
import { processSystem, systemsByTier } from '../../process/process-system.js';
import { dbosModuleSystemNamed } from './module/system.js';
import { dbosModuleEngine } from './module/module-engine.js';

function promises(c: DbosConfig): readonly CheckName[] {
  return c.keys === 'none' ? ['lost-write', 'invalid-conversation', 'half-answer', 'answer-twice'] : CHECK_NAMES;
}

/** Every kind DBOS's lives emit beyond the scenario's: its workflow's start and output, each step's record, and a user's workflow's waits and turns. */
const EVENT_KINDS = [...DBOS_EVENT_KINDS, STEP_RECORDED, RESUME_ACCEPTED];

/** The kinds of event a life can be killed right after: the scenario's, and DBOS's records. */
const KILL_POINTS = [...SCENARIO_EVENT_KINDS, ...EVENT_KINDS.map((k) => k.kind)];

function summaryOf(c: DbosConfig): string {
  const backend = c.backend === 'pglite' ? 'embedded PGlite' : 'Postgres';
  const mode = c.mode === 'workflow' ? 'model and tool calls as steps, no keys'
    : c.mode === 'workflow+keys' ? 'model and tool calls as steps, keys workflow id + tool call id'
    : c.mode === 'workflow+random-keys' ? 'BROKEN: keys from a fresh random id made inside the step'
    : 'BROKEN: every life launches with an executor id of its own, so no recovery ever runs the workflow';
  return `DBOS workflow on ${backend}: ${mode}`;
}

function bundledSystem(config: DbosConfig, name: string, livesIn: DbosLivesIn): SystemUnderTest {
  const selectorTail = livesIn === DEFAULT_DBOS_TIER ? [] : ['--tier', livesIn];
  const system = processSystem({ engine: 'dbos', name, summary: summaryOf(config), promised: promises(config), killPoints: KILL_POINTS, tier: dbosTier(config, name, livesIn), runsIn: livesIn, selectorTail });
  return holdingBackend(system, config.backend);
}

const bundledSystems = systemsByTier((name, livesIn) => bundledSystem(dbosConfigNamed(name)!, name, livesIn), DEFAULT_DBOS_TIER);

/**
 * The DBOS system of this name (see config.ts), or undefined; its lives in process unless `tier`
 * says 'process'. A user's own workflow is named by its module and input, as after --dbos.
 */
export function dbosSystem(name: string, options: SystemOptions = {}): SystemUnderTest | undefined {
  if (dbosConfigNamed(name) === undefined) return dbosModuleSystemNamed(name, options.tier);
  return bundledSystems(name, options);
}

export const dbosEngine: Engine = {
  name: 'dbos',
  summary: 'DBOS workflows on embedded PGlite or Postgres, each life run in process and cut off from the system database at the kill (--tier process: a process killed with SIGKILL)',
  systemNames: allDbosConfigs().map(dbosSystemName),
  defaultSystems: allDbosConfigs().filter((c) => !c.broken && c.backend === 'pglite').map(dbosSystemName),
  system: dbosSystem,
  tiers: [DEFAULT_DBOS_TIER, 'process'],
  eventKinds: EVENT_KINDS,
  module: dbosModuleEngine,
};
