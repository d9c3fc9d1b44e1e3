// Restate as an engine: a real Restate server (the installed restate-server binary, one per
// session, in a private temp folder) and the agent as a Restate service (@restatedev/restate-sdk)
// running the bundled scenarios unchanged (the model call a ctx.run step, each tool call a ctx.run
// step), each life the service's process killed with SIGKILL right after its kill point, each
// recovery a fresh service process on the same port that the server's retry calls. Nothing of
// Restate is imported here: only the children load the SDK.
//
// What each system is held to: every check. Restate's durable execution is the claim under test,
// and a user reads it as "the agent runs once": a step's result is journaled after its closure
// returns (ctx.run resolves once the server has it), so nothing journaled is lost and the
// conversation stays valid, but a kill between a write's commit and its journal entry runs the
// step again on the retry (the gap), and `service` fails there with the write done twice. With
// keys the repeat is answered from the key table and every check holds; the broken random keys
// never match, and the check must catch the repeat.

import { CHECK_NAMES } from '../../check/checks.js';
import { STEP_RECORDED } from '../../check/event-kinds.js';
import { SCENARIO_EVENT_KINDS } from '../../check/events.js';
import type { Engine, SystemOptions, SystemUnderTest } from '../../engine.js';
import { systemsByTier } from '../../process/process-system.js';
import { RESTATE_MODES, restateConfigNamed, type RestateConfig } from './config.js';
import { RESTATE_EVENT_KINDS } from './event-kinds.js';
import { requireAiMiddleware } from './packages.js';
import { restateSession } from './session.js';
import { DEFAULT_RESTATE_TIER, restateTier, type RestateLivesIn } from './tier.js';
import { restateModuleSystemNamed } from './module/system.js';
import { restateModuleEngine } from './module/module-engine.js';

/** Every kind Restate's lives emit beyond the scenario's: a step's start, its journal entry, the invocation's output. */
const EVENT_KINDS = [...RESTATE_EVENT_KINDS, STEP_RECORDED];

/** The kinds of event a life can be killed right after: the scenario's, and Restate's own. */
const KILL_POINTS = [...SCENARIO_EVENT_KINDS, ...EVENT_KINDS.map((k) => k.kind)];

function summaryOf(c: RestateConfig): string {
  const keys = c.keys === 'none' ? 'no keys' : c.keys === 'stable' ? 'keys invocation id + tool call id' : 'BROKEN: keys from a fresh random id made inside the step';
  if (c.loop === 'ai-middleware') return `Restate service running the AI SDK's generateText, the model under Restate's durableCalls middleware, tool calls as ctx.run steps: ${keys}`;
  return `Restate service, model and tool calls as ctx.run steps: ${keys}`;
}

function bundledSystem(config: RestateConfig, name: string, livesIn: RestateLivesIn): SystemUnderTest {
  return {
    engine: 'restate',
    name,
    summary: summaryOf(config),
    promised: CHECK_NAMES,
    killPoints: KILL_POINTS,
    selector: ['--engine', 'restate', '--strategy', name, ...(livesIn === DEFAULT_RESTATE_TIER ? [] : ['--tier', livesIn])],
    inProcess: false,
    tier: livesIn,
    open: (scenario) => {
      if (config.loop === 'ai-middleware') requireAiMiddleware();
      return restateSession(scenario, name, (server, warm) => restateTier(config, name, server, warm, livesIn));
    },
  };
}

const bundledSystems = systemsByTier((name, livesIn) => bundledSystem(restateConfigNamed(name)!, name, livesIn), DEFAULT_RESTATE_TIER);

/**
 * The Restate system of this name (see config.ts), or undefined; its lives in killpoint's process
 * unless `tier` says 'process'. A user's own service is named by its module and input, as after
 * --restate, its lives where `tier` (or the name's own --tier) says.
 */
export function restateSystem(name: string, options: SystemOptions = {}): SystemUnderTest | undefined {
  if (restateConfigNamed(name) === undefined) return restateModuleSystemNamed(name, options.tier);
  return bundledSystems(name, options);
}

export const restateEngine: Engine = {
  name: 'restate',
  summary: 'a Restate service on a private restate-server, each life an endpoint in killpoint\'s process torn down at its kill point (--tier process: the service process killed with SIGKILL)',
  systemNames: RESTATE_MODES,
  defaultSystems: RESTATE_MODES.filter((name) => !restateConfigNamed(name)!.broken),
  system: restateSystem,
  tiers: [DEFAULT_RESTATE_TIER, 'process'],
  eventKinds: EVENT_KINDS,
  module: restateModuleEngine,
};
