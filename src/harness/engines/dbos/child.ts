// The process of one DBOS life: killpoint's own client of the kill protocol for this engine. The
// run (scenario, system, database, the run's DBOS names) comes from the file KILLPOINT_DBOS_RUN
// names, the interleaving picks this life may use from KILLPOINT_DBOS_PICKS. Each event line
// carries the picks taken since the previous event (`picks`, `pickWidths`). A conversation the
// scripted model rejects is a failure of the life (exit 3); any other error is a crash, judged by
// the parent. With KILLPOINT_DBOS_PREPARE instead, the process prepares a system database once
// for a whole sweep (creates and migrates it, registers the queue) and exits.

import { readFileSync, writeFileSync } from 'node:fs';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { ENV, EventSink, EXIT_FAILED } from '../../process/protocol.js';
import { deserializeScenario } from '../../../model/scenario-json.js';
import { runDbosLife } from './life.js';
import type { EngineLifeResult } from '../../process/process-life.js';
import { receiveLifeVariables } from '../../process/warm-start.js';
import { APP_NAME, DBOS_ENV, QUEUE_NAME, QUEUE_POLLING_MS, type DbosPrepareSpec, type DbosRunSpec } from './run-spec.js';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name}: not set`);
  return value;
}

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

async function life(): Promise<void> {
  const sink = EventSink.fromEnv();
  sink.start();
  const spec = JSON.parse(readFileSync(required(DBOS_ENV.run), 'utf8')) as DbosRunSpec;
  const resultPath = required(ENV.result);
  let index = 0;
  let picks: number[] = [];
  let pickWidths: number[] = [];
  const emit = (event: { kind: string; [field: string]: unknown }): void => {
    const line = picks.length > 0 ? { ...event, index, picks, pickWidths } : { ...event, index };
    picks = [];
    pickWidths = [];
    index++;
    sink.emit(line);
  };
  let result: EngineLifeResult;
  try {
    const conversation = await runDbosLife({
      scenario: deserializeScenario(spec.scenario),
      config: spec.config,
      stateDir: required(ENV.stateDir),
      databaseUrl: spec.databaseUrl,
      run: spec.run,
      lifeIndex: Number(required(ENV.life)),
      picks: JSON.parse(process.env[DBOS_ENV.picks] ?? '[]') as number[],
      emit,
      onPick: (pick, width) => {
        picks.push(pick);
        pickWidths.push(width);
      },
    });
    result = { end: 'finished', conversation };
  } catch (error) {
    // DBOS hands a workflow's error back by name and message.
    if ((error as Error | undefined)?.name !== 'ConversationRejected') throw error;
    result = { end: 'failed', errorKind: 'conversation-rejected', error: (error as Error).message };
    writeFileSync(resultPath, JSON.stringify(result));
    process.stderr.write(`${result.error}\n`);
    process.exit(EXIT_FAILED);
  }
  writeFileSync(resultPath, JSON.stringify(result));
}

// The pg client warns on stderr about queries DBOS overlaps; the warning would hide a real error line.
process.noDeprecation = true;
// A warm child waits here, loaded, for its life's variables (src/harness/process/warm-pool.ts).
receiveLifeVariables();
const preparing = process.env[DBOS_ENV.prepare];
(preparing ? prepare(JSON.parse(readFileSync(preparing, 'utf8')) as DbosPrepareSpec) : life()).then(
  // DBOS keeps its pool and queue loop running: the life is over once its result is written.
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
