// Vercel Workflow as an engine: a real Workflow SDK run (workflow, @workflow/core, on the local
// world, @workflow/world-local) of the bundled scenarios unchanged, as a DurableAgent
// (@workflow/ai) or as plain "use step" functions, the model killpoint's scripted model, each life
// on a thread of killpoint's process cut off at its kill point (in-process-life.ts), or with
// --tier process a child process killed with SIGKILL right after it, each recovery a fresh thread
// or process on the same world folder. Nothing of the SDK is loaded on killpoint's own thread: the
// threads and children load it, and the builder is loaded when a system first runs (bundles.ts).
//
// Every system is held to every check: a durable agent is one a kill does not make do a write
// twice, and that is what the SDK's DurableAgent is offered as. When the world records decides
// which it keeps: a step's result is written (step_completed) after its function returns, so
// nothing recorded is lost and the conversation stays valid, but a kill between a write's commit
// and step_completed runs the step again (the gap): without keys, `check` fails there and names
// the minimal kill point. With keys the repeat is answered from the key table. The broken random
// keys are caught in the same gap.

import { CHECK_NAMES } from '../../check/checks.js';
import { SCENARIO_EVENT_KINDS } from '../../check/events.js';
import { RESUME_ACCEPTED, STEP_RECORDED } from '../../check/event-kinds.js';
import type { Engine } from '../../engine.js';
import { processSystem, systemsByTier } from '../../process/process-system.js';
import type { SystemOptions, SystemUnderTest } from '../../engine.js';
import { allVercelConfigs, vercelConfigNamed, type VercelConfig } from './config.js';
import { VERCEL_EVENT_KINDS } from './event-kinds.js';
import { vercelModuleSystemNamed } from './module/system.js';
import { DEFAULT_VERCEL_TIER, vercelTier, type VercelLivesIn } from './tier.js';
import { vercelModuleEngine } from './module/module-engine.js';

/** Every kind the lives emit beyond the scenario's: the world's events, each step's record, a turn handed to a user's workflow that waits on a hook. */
const EVENT_KINDS = [...VERCEL_EVENT_KINDS, STEP_RECORDED, RESUME_ACCEPTED];

/** The kinds of event a life can be killed right after: the scenario's, and the world's. */
const KILL_POINTS = [...SCENARIO_EVENT_KINDS, ...EVENT_KINDS.map((k) => k.kind)];

function summaryOf(c: VercelConfig): string {
  const shape = c.shape === 'agent' ? 'DurableAgent, each model call and tool call a step' : 'plain "use step" functions from a "use workflow" loop';
  const keys = c.keys === 'none' ? 'no keys'
    : c.keys === 'stable' ? `keys workflowRunId + ${c.shape === 'agent' ? 'toolCallId' : 'stepId'}`
    : 'BROKEN: keys from a fresh random id made inside the step';
  return `Vercel Workflow on the local world: ${shape}, ${keys}`;
}

function bundledSystem(config: VercelConfig, name: string, livesIn: VercelLivesIn): SystemUnderTest {
  const selectorTail = livesIn === DEFAULT_VERCEL_TIER ? [] : ['--tier', livesIn];
  return processSystem({ engine: 'vercel-workflow', name, summary: summaryOf(config), promised: CHECK_NAMES, killPoints: KILL_POINTS, tier: vercelTier(config, livesIn), runsIn: livesIn, selectorTail });
}

const bundledSystems = systemsByTier((name, livesIn) => bundledSystem(vercelConfigNamed(name)!, name, livesIn), DEFAULT_VERCEL_TIER);

/**
 * The Vercel Workflow system of this name (see config.ts), or undefined; its lives on threads of
 * killpoint's process unless `tier` says 'process'. A user's own workflow is named by its module and
 * input, as after --vercel-workflow.
 */
export function vercelWorkflowSystem(name: string, options: SystemOptions = {}): SystemUnderTest | undefined {
  if (vercelConfigNamed(name) === undefined) return vercelModuleSystemNamed(name, options.tier);
  return bundledSystems(name, options);
}

export const vercelWorkflowEngine: Engine = {
  name: 'vercel-workflow',
  summary: 'Vercel Workflow (DurableAgent and plain steps) on the local world, each life on a thread of killpoint\'s process, cut off at its kill point (--tier process: a process killed with SIGKILL)',
  systemNames: allVercelConfigs().map((c) => c.name),
  defaultSystems: allVercelConfigs().filter((c) => !c.broken).map((c) => c.name),
  system: vercelWorkflowSystem,
  tiers: [DEFAULT_VERCEL_TIER, 'process'],
  eventKinds: EVENT_KINDS,
  module: vercelModuleEngine,
};
