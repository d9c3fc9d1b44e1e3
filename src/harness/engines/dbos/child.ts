// The process of one DBOS life: killpoint's own client of the kill protocol for this engine
// (src/harness/process/child-main.ts does the protocol's part). The run (scenario, system,
// database, the run's DBOS names) comes from the file KILLPOINT_DBOS_RUN names, the interleaving
// picks this life may use from KILLPOINT_DBOS_PICKS. With KILLPOINT_DBOS_PREPARE instead, the
// process prepares a system database once for a whole sweep (creates and migrates it, registers
// the queue) and exits.

import { readFileSync } from 'node:fs';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { ENV } from '../../process/protocol.js';
import { deserializeScenario } from '../../../model/scenario-json.js';
import { runDbosLife } from './life.js';
import { picksFromVariable, requiredVariable, runChildMain, runProtocolLife } from '../../process/child-main.js';
import { receiveLifeVariables } from '../../process/warm-start.js';
import { APP_NAME, DBOS_ENV, QUEUE_NAME, QUEUE_POLLING_MS, type DbosPrepareSpec, type DbosRunSpec } from './run-spec.js';

async function prepare(spec: DbosPrepareSpec): Promise<void> {
  DBOS.setConfig({
    name: APP_NAME,
    systemDatabaseUrl: spec.databaseUrl,
    applicationVersion: 'killpoint-prepare',
    executorID: 'killpoint-prepare',
    logLevel: 'error',
    ...(spec.backend === 'pglite' ? { systemDatabasePoolSize: 1, useListenNotify: false } : {}),
  });
  await DBOS.launch();
  await DBOS.registerQueue(QUEUE_NAME, { minPollingIntervalMs: QUEUE_POLLING_MS, onConflict: 'always_update' });
}

function life(): Promise<void> {
  return runProtocolLife<DbosRunSpec>(DBOS_ENV.run, (spec, { emit, onPick }) =>
    runDbosLife({
      scenario: deserializeScenario(spec.scenario),
      config: spec.config,
      stateDir: requiredVariable(ENV.stateDir),
      databaseUrl: spec.databaseUrl,
      run: spec.run,
      lifeIndex: Number(requiredVariable(ENV.life)),
      picks: picksFromVariable(DBOS_ENV.picks),
      emit,
      onPick,
    }),
  );
}

// The pg client warns on stderr about queries DBOS overlaps; the warning would hide a real error line.
process.noDeprecation = true;
// A warm child waits here, loaded, for its life's variables (src/harness/process/warm-pool.ts).
receiveLifeVariables();
const preparing = process.env[DBOS_ENV.prepare];
// DBOS keeps its pool and queue loop running: the life is over once its result is written.
runChildMain(() => (preparing ? prepare(JSON.parse(readFileSync(preparing, 'utf8')) as DbosPrepareSpec) : life()), { exitWhenDone: true });
