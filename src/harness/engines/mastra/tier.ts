// Mastra's lives one at a time from a durable state (the seam's ProcessTier,
// src/harness/process/process-lives.ts), and so its whole runs too. A run's durable state is its
// folder: the shop's SQLite file, the outbox, and Mastra's storage (a libSQL file, SQLite, read by
// its rows). A snapshot carries times (its own, each step's start and end, the rows' created and
// updated columns), which no life compares across states: the digest drops them (canonical.ts).
// A copy of a state is a copy of the folder: the run id is the scenario's, and nothing outside
// the folder names it.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../../../model/scenario.js';
import { Shop } from '../../../model/shop.js';
import { serializeScenario } from '../../../model/scenario-json.js';
import type { ProcessTier, TierLife, TierLifeRequest } from '../../process/process-lives.js';
import { readRunStores, runEngineLife } from '../../process/process-life.js';
import { mastraChild } from './bundle.js';
import { dropMastraTimes } from './canonical.js';
import { MASTRA_NEEDS, type MastraConfig } from './config.js';
import { MASTRA_ENV, MASTRA_LIFE_TIMEOUT_VARIABLE, MASTRA_STATE_FILES, type MastraRunSpec } from './run-spec.js';

/** One life in a child process, from the state in `stateDir`. */
async function mastraLife(scenario: Scenario, config: MastraConfig, request: TierLifeRequest): Promise<TierLife> {
  const spec: MastraRunSpec = { scenario: serializeScenario(scenario), config };
  const child = { engine: 'Mastra', bundle: await mastraChild(), runFileVariable: MASTRA_ENV.run, picksVariable: MASTRA_ENV.picks, timeoutVariable: MASTRA_LIFE_TIMEOUT_VARIABLE };
  return runEngineLife(child, request, `${scenario.id} mastra ${config.name} life ${request.lifeIndex}`, spec);
}

export function mastraTier(config: MastraConfig): ProcessTier {
  return {
    name: `mastra-${config.name}`,
    files: [
      { name: MASTRA_STATE_FILES.shop, kind: 'sqlite' },
      { name: MASTRA_STATE_FILES.outbox, kind: 'bytes' },
      { name: MASTRA_STATE_FILES.storage, kind: 'sqlite' },
    ],
    canonical: dropMastraTimes,
    needs: MASTRA_NEEDS,
    prepare: (scenario, stateDir) => {
      mkdirSync(stateDir, { recursive: true });
      Shop.create(scenario.shop, join(stateDir, MASTRA_STATE_FILES.shop)).close();
    },
    life: (scenario, request) => mastraLife(scenario, config, request),
    stores: (scenario, stateDir) => readRunStores(join(stateDir, MASTRA_STATE_FILES.shop), join(stateDir, MASTRA_STATE_FILES.outbox), scenario.id),
  };
}
