// A user's graph against the bundled LangGraph engine: the same agent written as a user's module
// (its own tools over the shop, its effects the shop's write log) and as the bundled engine's
// system must give the same verdict at every kill point both have. A kill point is matched by
// its identity (tool-result[call_refund], checkpoint-saved[step 3], ...); the module's node
// events and the bundled engine's shop commits have no counterpart and are left out. Verdicts are
// compared on what both can judge: effects done twice, lost or different, the answer, the
// conversation (the bundled engine also reads the shop's rows and refusals, a module its graph's
// state).

import type { CheckName } from '../check/checks.js';
import { eventIdentities, findKillPoint } from '../check/kill-points.js';
import type { RunOutcome } from '../check/outcome.js';
import type { Scenario } from '../../model/scenario.js';
import { loadScenarioFile } from '../../model/load.js';
import type { Session, SystemUnderTest } from '../engine.js';
import { langGraphSystem } from '../engines/langgraph/engine.js';
import { langGraphModuleSpec, langGraphModuleSystem } from '../engines/langgraph/module/system.js';
import { judged, mustFinish } from '../search/explore.js';
import { withSession } from '../session.js';

/** The checks both sides judge the same way. */
export const SHARED_CHECKS: readonly CheckName[] = ['done-twice', 'lost-write', 'different-write', 'different-answer', 'invalid-conversation'];

export interface ModuleDifferentialOptions {
  scenarioFile: string;
  /** The bundled engine's system, e.g. toolnode/async. */
  strategy: string;
  module: string;
  inputFile: string;
  /** Only these kill points (identities); default every one both have. */
  identities?: readonly string[];
}

export interface KillPointComparison {
  identity: string;
  bundled: CheckName[];
  module: CheckName[];
  agree: boolean;
}

interface Side {
  system: SystemUnderTest;
  task: Scenario;
  session: Session;
  baseline: RunOutcome;
}

async function verdictAt(side: Side, identity: string): Promise<CheckName[]> {
  const k = findKillPoint(side.baseline.lives[0]?.events ?? [], identity);
  if (k === null) throw new Error(`${side.system.name}: no kill point ${identity}`);
  const schedule = { kills: [k], interleaving: [] };
  const outcome = await side.session.run(schedule);
  return judged(side.task, side.system, schedule, side.baseline, outcome).failed.filter((c) => SHARED_CHECKS.includes(c));
}

/** Both systems at every shared kill point (or those asked for), in the bundled run's order. */
export async function compareModuleWithBundled(options: ModuleDifferentialOptions): Promise<KillPointComparison[]> {
  const scenario = loadScenarioFile(options.scenarioFile);
  const bundledSystem = langGraphSystem(options.strategy);
  if (bundledSystem === undefined) throw new Error(`langgraph: no system ${options.strategy}`);
  const moduleSystem = langGraphModuleSystem(langGraphModuleSpec({ module: options.module, inputFile: options.inputFile }));
  return withSession(bundledSystem, scenario, (bundledSession) =>
    withSession(moduleSystem, moduleSystem.ownTask!, async (moduleSession) => {
      const bundled: Side = { system: bundledSystem, task: scenario, session: bundledSession, baseline: await bundledSession.run({ kills: [], interleaving: [] }) };
      const mine: Side = { system: moduleSystem, task: moduleSystem.ownTask!, session: moduleSession, baseline: await moduleSession.run({ kills: [], interleaving: [] }) };
      mustFinish(bundled.baseline, bundledSystem);
      mustFinish(mine.baseline, moduleSystem);
      const theirs = new Set(eventIdentities(mine.baseline.lives[0]?.events ?? []));
      const shared = eventIdentities(bundled.baseline.lives[0]?.events ?? []).filter((id) => theirs.has(id));
      const asked = options.identities ?? shared;
      const missing = asked.filter((id) => !shared.includes(id));
      if (missing.length > 0) throw new Error(`not a kill point of both: ${missing.join(', ')}`);
      const rows: KillPointComparison[] = [];
      for (const identity of asked) {
        const b = await verdictAt(bundled, identity);
        const m = await verdictAt(mine, identity);
        rows.push({ identity, bundled: b, module: m, agree: b.join() === m.join() });
      }
      return rows;
    }),
  );
}
