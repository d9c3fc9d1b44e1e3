// Runs a scenario on a DBOS system under a kill schedule: the backend's system database (started
// and prepared once per process), a fresh state folder with the scenario's shop, the run's own
// DBOS names, then one child process per life (the one life loop), each killing itself with
// SIGKILL right after its kill point; reads back every life's events and end, the shop's logs and
// rows, the delivered answers and the conversation the workflow recorded. DBOS is loaded only in
// the children: the parent stays light.

import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LifeRecord, RunOutcome, Schedule } from '../../check/outcome.js';
import type { Conversation } from '../../../model/conversation.js';
import type { Scenario } from '../../../model/scenario.js';
import { Shop } from '../../../model/shop.js';
import { lifeTimeoutFrom, withTempDir } from '../../process/processes.js';
import { engineLifeRecord, picksLeft, readRunStores, runProcessLife } from '../../process/process-life.js';
import { runLives } from '../../life-loop.js';
import { serializeScenario } from '../../../model/scenario-json.js';
import { systemDatabase } from './backend.js';
import { dbosChild } from './bundle.js';
import type { DbosConfig } from './config.js';
import { DBOS_ENV, DBOS_STATE_FILES, type DbosRunSpec, type RunIdentity } from './run-spec.js';

/** Seconds a life may take, when a shorter (or longer) limit is wanted. */
export const DBOS_LIFE_TIMEOUT_VARIABLE = 'KILLPOINT_DBOS_LIFE_TIMEOUT_S';

/** A run's own names in the shared system database (see RunIdentity). */
export function runIdentity(scenario: Scenario): RunIdentity {
  return namesOfOwn((token) => `${scenario.id}-${token}`);
}

/** Names of its own for a copy of a run's state (the explorer by equivalence, tier.ts): the same run, its key kept. */
export function copyIdentity(of: RunIdentity): RunIdentity {
  return namesOfOwn((token) => `${of.runKey}~${token}`, of.runKey);
}

function namesOfOwn(workflowIdOf: (token: string) => string, runKey?: string): RunIdentity {
  const token = randomUUID().slice(0, 13);
  const workflowId = workflowIdOf(token);
  return { workflowId, appVersion: `killpoint-${token}`, executorId: `killpoint-${token}`, runKey: runKey ?? workflowId };
}

export async function runDbos(scenario: Scenario, config: DbosConfig, systemName: string, schedule: Schedule): Promise<RunOutcome> {
  const [databaseUrl, bundle] = await Promise.all([systemDatabase(config.backend), dbosChild()]);
  const timeoutMs = lifeTimeoutFrom(DBOS_LIFE_TIMEOUT_VARIABLE);
  return withTempDir('killpoint-dbos-', async (dir) => {
    const stateDir = join(dir, 'state');
    const specPath = join(dir, 'run.json');
    const spec: DbosRunSpec = { scenario: serializeScenario(scenario), config, databaseUrl, run: runIdentity(scenario) };
    writeFileSync(specPath, JSON.stringify(spec));
    mkdirSync(stateDir);
    Shop.create(scenario.shop, join(stateDir, DBOS_STATE_FILES.shop)).close();

    const picksTaken: number[] = [];
    const pickWidths: number[] = [];
    let finalConversation: Conversation | null = null;
    const lives = await runLives(schedule.kills, async (lifeIndex, killAfter): Promise<LifeRecord> => {
      const what = `${scenario.id} dbos ${systemName} life ${lifeIndex}`;
      const ran = await runProcessLife({
        dir, stateDir, lifeIndex, killAfter, bundle, what,
        env: { [DBOS_ENV.run]: specPath },
        picksVariable: DBOS_ENV.picks,
        picksLeft: picksLeft(schedule.interleaving, picksTaken.length),
        timeoutMs,
      });
      picksTaken.push(...ran.picks);
      pickWidths.push(...ran.widths);
      const { record, conversation } = engineLifeRecord('DBOS', ran, killAfter, what);
      if (conversation !== null) finalConversation = conversation;
      return record;
    });

    return {
      scenarioId: scenario.id,
      strategy: systemName,
      schedule,
      lives,
      picksTaken,
      pickWidths,
      ...readRunStores(join(stateDir, DBOS_STATE_FILES.shop), join(stateDir, DBOS_STATE_FILES.outbox), scenario.id),
      finalConversation,
    };
  });
}
