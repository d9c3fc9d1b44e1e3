// What a DBOS life needs to know about its run, as a JSON file beside its state, and the files it
// keeps its state in (DBOS's own state is in the system database). Shared by the parent and the
// child; imports no DBOS.

import type { SerializedScenario } from '../../../model/scenario-json.js';
import type { DbosConfig } from './config.js';

/** Environment variables of the DBOS child, beside the protocol's own (src/harness/process/protocol.ts). */
export const DBOS_ENV = { run: 'KILLPOINT_DBOS_RUN', picks: 'KILLPOINT_DBOS_PICKS', prepare: 'KILLPOINT_DBOS_PREPARE' } as const;

/** DBOS's application name for every run; runs are told apart by their version (see RunIdentity). */
export const APP_NAME = 'killpoint';
/** The queue every workflow is started on: polled every QUEUE_POLLING_MS, so a recovery is prompt. */
export const QUEUE_NAME = 'killpoint';
/**
 * Every life waits for a poll before its workflow runs (a new one is enqueued, a recovered one
 * re-enqueued at launch). Measured on a check of T01 in process on PGlite: 4.4 s at 20 ms, 3.4 s
 * at 5 ms, 3.7 s at 2 ms (each poll is SQL that PGlite runs in killpoint's process).
 */
export const QUEUE_POLLING_MS = 5;

/** The names a workflow's rows carry in the system database. */
export interface RowNames {
  workflowId: string;
  appVersion: string;
  executorId: string;
}

/**
 * Runs share one system database (PGlite has only one), so each run has names of its own: the
 * workflow id, and the application version and executor id every life of the run launches with
 * (DBOS recovers only the workflows of its own executor and version, and a queue hands a workflow
 * only to an executor of its version, so side-by-side runs never take each other's work).
 */
export interface RunIdentity extends RowNames {
  /**
   * What the run's keys and seeded random keys are made of: its first workflow id. A copy of a
   * run's state (the explorer by equivalence, tier.ts) has names of its own but is the same run,
   * so it keeps the key; a key names the run and the step, never a database row's name.
   */
  runKey: string;
  /**
   * The names of the run's first state (runKey is their workflow id), kept by every copy: a
   * user's workflow runs under them in every life of every copy, its state's rows moved under
   * them for the life and back after it (run-names.ts), so DBOS.workflowID is the same in all.
   */
  runNames: RowNames;
}

export interface DbosRunSpec {
  scenario: SerializedScenario;
  config: DbosConfig;
  databaseUrl: string;
  run: RunIdentity;
}

/** What the prepare child needs: the database to create or migrate, and how to connect. */
export interface DbosPrepareSpec {
  databaseUrl: string;
  backend: DbosConfig['backend'];
}

export const DBOS_STATE_FILES = { shop: 'shop.sqlite', outbox: 'outbox.jsonl' } as const;

/** Seconds a life may take, when a shorter (or longer) limit is wanted. */
export const DBOS_LIFE_TIMEOUT_VARIABLE = 'KILLPOINT_DBOS_LIFE_TIMEOUT_S';
