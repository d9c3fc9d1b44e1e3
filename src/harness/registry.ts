// The engines killpoint can check, by name: one line each. An engine is a folder under
// src/harness/engines with one file that exports its Engine (see engine.ts); `registerEngine` also lets a
// test or a user's own setup add one at run time, with the kinds of event it adds to the
// scenario's (check/event-kinds.ts).

import { isScenarioKind } from './check/events.js';
import type { Engine } from './engine.js';
import type { ModuleEngine } from './engine.js';
import { registerEventKinds } from './check/event-kinds.js';
import { dbosEngine } from './engines/dbos/engine.js';
import { externalEngine } from './engines/external/engine.js';
import { langGraphEngine } from './engines/langgraph/engine.js';
import { mastraEngine } from './engines/mastra/engine.js';
import { restateEngine } from './engines/restate/engine.js';
import { scriptedEngine } from './engines/scripted/engine.js';
import { vercelWorkflowEngine } from './engines/vercel-workflow/engine.js';

const ENGINES = new Map<string, Engine>();

export function registerEngine(engine: Engine): Engine {
  const known = ENGINES.get(engine.name);
  if (known !== undefined && known !== engine) throw new Error(`registerEngine: an engine named "${engine.name}" is already registered`);
  const kinds = engine.eventKinds ?? [];
  const scenarios = kinds.filter((k) => isScenarioKind(k.kind)).map((k) => k.kind);
  if (scenarios.length > 0) throw new Error(`registerEngine: engine "${engine.name}" declares ${scenarios.join(', ')}, which the scenario's events are: it emits them as they are, without declaring them`);
  registerEventKinds(kinds, `registerEngine: engine "${engine.name}"`);
  ENGINES.set(engine.name, engine);
  return engine;
}

export function engineNamed(name: string): Engine | undefined {
  return ENGINES.get(name);
}

export function engineNames(): string[] {
  return [...ENGINES.keys()];
}

/** The engines that check a user's own module, each with how its module is named (Engine.module). */
export function moduleEngines(): { engine: string; module: ModuleEngine }[] {
  return [...ENGINES.values()].flatMap((e) => (e.module === undefined ? [] : [{ engine: e.name, module: e.module }]));
}

export const DEFAULT_ENGINE = 'scripted';

registerEngine(scriptedEngine);
registerEngine(externalEngine);
registerEngine(langGraphEngine);
registerEngine(dbosEngine);
registerEngine(vercelWorkflowEngine);
registerEngine(restateEngine);
registerEngine(mastraEngine);
