// DBOS's lives one at a time from a durable state, for the explorer by equivalence (the seam's
// ProcessTier, src/harness/process/process-lives.ts). A DBOS run's durable state is in two places: its folder
// (the shop's SQLite file, the outbox) and its rows in the system database shared by every run of
// the process (the workflow's status, its recorded steps, its input and output). The folder names
// its rows by a file of its own (identity.json: the workflow id, executor id and application
// version its lives launch with), so:
// - the digest of a state is its files' and, beside them, its rows: every table of DBOS's schema
//   that has a workflow id, and the messages sent to it, the state's own names renamed, times and
//   transaction ids dropped;
// - a copy of a state (each life runs in one) gets names of its own and a copy of the rows under
//   them, keeping the run's key (RunIdentity.runKey) so that its idempotency keys are the run's.
// The parent reads the database with `pg`, the client DBOS itself is built on (backend.ts loads it
// from where DBOS loads it).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../../../model/scenario.js';
import { Shop } from '../../../model/shop.js';
import { SystemInputError } from '../../engine.js';
import type { OutsideState, ProcessTier, TierLife, TierLifeRequest } from '../../process/process-lives.js';
import { readRunStores, runEngineLife } from '../../process/process-life.js';
import { lifeTimeoutFrom } from '../../life-time-limit.js';
import { serializeScenario } from '../../../model/scenario-json.js';
import { databaseClient as database, systemDatabase } from './backend.js';
import type { Queryable } from './pg.js';
import { dbosChild } from './bundle.js';
import { dbosNeeds, type Backend, type DbosConfig } from './config.js';
import { copyIdentity, IDENTITY_FILE, identityOf, runIdentity } from './identity.js';
import { DBOS_ENV, DBOS_LIFE_TIMEOUT_VARIABLE, DBOS_STATE_FILES, type DbosRunSpec, type RowNames, type RunIdentity } from './run-spec.js';

/** Columns whose values are made of the clock or of transaction ids: no life compares them across states. */
const NOT_READ = /(_at|_ms|_timestamp|_time|_xid)$/;

/** DBOS's schema: each table's columns in order (read once per database). */
const schemaOf = new Map<string, Promise<Map<string, string[]>>>();
function dbosSchema(url: string): Promise<Map<string, string[]>> {
  let schema = schemaOf.get(url);
  if (schema === undefined) {
    schema = database(url)
      .query(
        `SELECT table_name, array_agg(column_name::text ORDER BY ordinal_position) AS columns FROM information_schema.columns
         WHERE table_schema = 'dbos' GROUP BY table_name ORDER BY table_name`,
      )
      .then(({ rows }) => new Map(rows.map((r) => [r.table_name as string, r.columns as string[]])));
    schemaOf.set(url, schema);
  }
  return schema;
}

/** DBOS's tables that hold a workflow's rows (they have its id), the status table first: the other tables' rows refer to its rows. */
async function workflowTables(url: string): Promise<{ table: string; columns: string[] }[]> {
  const tables = [...(await dbosSchema(url))].filter(([, columns]) => columns.includes('workflow_uuid')).map(([table, columns]) => ({ table, columns }));
  return [...tables.filter((t) => t.table === 'workflow_status'), ...tables.filter((t) => t.table !== 'workflow_status')];
}

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * Messages sent to a workflow (DBOS.send: a turn of --resume handed to a user's workflow waiting
 * in DBOS.recv) carry its id as their destination, not as workflow_uuid, and their key (an
 * idempotent send's) ends with it: they are digested and copied with the workflow's rows, the key
 * renamed with it. DBOS renames and deletes their destination with the status row (its foreign
 * key cascades).
 */
const MESSAGES = { table: 'notifications', destination: 'destination_uuid', key: 'message_uuid' } as const;

/** Whether the schema has DBOS's messages as killpoint reads them. */
async function hasMessages(url: string): Promise<boolean> {
  const columns = (await dbosSchema(url)).get(MESSAGES.table) ?? [];
  return columns.includes(MESSAGES.destination) && columns.includes(MESSAGES.key);
}

/**
 * Rows that belong to a run without carrying its workflow id, beside its messages: a copy of a
 * state would lack them and its digest would not see them. Workflows it started (the status rows
 * name it as their parent) and the steps that started them. Our agent makes none; one that did
 * could not be explored soundly by copying rows, so the digest stops on them rather than let
 * recoveries it cannot tell apart share one.
 */
const NOT_COPIED = [
  { table: 'workflow_status', column: 'parent_workflow_id', where: 'parent_workflow_id = $1', what: 'workflows it started' },
  { table: 'operation_outputs', column: 'child_workflow_id', where: 'workflow_uuid = $1 AND child_workflow_id IS NOT NULL', what: 'steps that started a workflow' },
];

/** What of a workflow's rows does not carry its id (see NOT_COPIED), each as "N in dbos.table (what)": one query. */
export async function rowsNotCopied(url: string, workflowId: string): Promise<string[]> {
  const schema = await dbosSchema(url);
  const asked = NOT_COPIED.filter((c) => schema.get(c.table)?.includes(c.column));
  if (asked.length === 0) return [];
  const counts = asked.map((c, i) => `(SELECT count(*)::int FROM dbos.${quote(c.table)} WHERE ${c.where}) AS n${i}`);
  const { rows } = await database(url).query(`SELECT ${counts.join(', ')}`, [workflowId]);
  // One row, always: a server that answers none has lost the query (see backends/pglite-socket.ts).
  if (rows.length !== 1) throw new Error(`dbos: the count of ${workflowId}'s rows that do not carry its id came back with ${rows.length} rows`);
  return asked.flatMap((c, i) => {
    const n = rows[0]![`n${i}`] as number;
    return n > 0 ? [`${n} in dbos.${c.table} (${c.what})`] : [];
  });
}

/**
 * A life's connections carry its state's workflow id as their application name, so that the
 * parent can tell when a killed life's connections are gone (see settled).
 */
export function lifeUrl(url: string, run: RunIdentity): string {
  const named = new URL(url);
  named.searchParams.set('application_name', run.workflowId);
  return named.toString();
}

/** How long a killed life's sessions may take to go; a server that keeps them longer is not answering. */
const SESSIONS_GONE_MS = 30_000;

/**
 * Postgres: waits until no session of the killed life is left, since a server runs a statement it
 * had received even after its client is gone, and the state a kill leaves includes what it commits.
 * (PGlite is served from this process: the dead child's last statements are queued before any
 * query of ours.)
 */
export async function settled(db: Queryable, run: RunIdentity): Promise<void> {
  const until = Date.now() + SESSIONS_GONE_MS; // real clock: waiting on another process
  for (;;) {
    const { rows } = await db.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [run.workflowId]);
    if (rows[0]!.n === 0) return;
    const late = Date.now() > until; // real clock: the time limit of a wait on another process
    if (late) throw new Error(`dbos: the sessions of ${run.workflowId} were still open ${SESSIONS_GONE_MS / 1000} s after its life was killed`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The state's rows outside its folder, canonical: its own names renamed, what no life compares dropped. */
async function rowsDigest(url: string, stateDir: string, postgres: boolean): Promise<string> {
  const run = identityOf(stateDir);
  const db = database(url);
  if (postgres) await settled(db, run);
  // A user's workflow ran under the run's first names (run-names.ts): rows that refer to it name those.
  const ranUnder = [...new Set([run.workflowId, run.runNames.workflowId])];
  const missed = (await Promise.all(ranUnder.map((id) => rowsNotCopied(url, id)))).flat();
  if (missed.length > 0) {
    throw new SystemInputError(`dbos: workflow ${run.workflowId} has rows that do not carry its id, which a copy of its state would lack: ${missed.join('; ')}. The DBOS tier explores by equivalence only workflows whose rows all carry their own id.`);
  }
  const rename = (value: unknown): unknown =>
    typeof value === 'string' ? value.replaceAll(run.workflowId, '{workflow}').replaceAll(run.executorId, '{executor}').replaceAll(run.appVersion, '{version}') : value;
  const parts: string[] = [];
  for (const { table, columns } of await workflowTables(url)) {
    const read = columns.filter((c) => !NOT_READ.test(c));
    const { rows } = await db.query(`SELECT ${read.map(quote).join(', ')} FROM dbos.${quote(table)} WHERE workflow_uuid = $1`, [run.workflowId]);
    const lines = rows.map((row) => JSON.stringify(read.map((c) => rename(row[c])))).sort();
    if (lines.length > 0) parts.push(`table ${table}`, ...lines);
  }
  if (await hasMessages(url)) {
    const columns = (await dbosSchema(url)).get(MESSAGES.table)!.filter((c) => !NOT_READ.test(c));
    const { rows } = await db.query(`SELECT ${columns.map(quote).join(', ')} FROM dbos.${quote(MESSAGES.table)} WHERE ${MESSAGES.destination} = $1`, [run.workflowId]);
    const lines = rows.map((row) => JSON.stringify(columns.map((c) => rename(row[c])))).sort();
    if (lines.length > 0) parts.push(`table ${MESSAGES.table}`, ...lines);
  }
  return parts.join('\n');
}

/**
 * Copies the rows of `from`'s names under `to`'s (status row: its executor and version too), in
 * one transaction, the status row first (see workflowTables).
 */
async function copyRows(url: string, from: RunIdentity, to: RunIdentity): Promise<void> {
  const tables = await workflowTables(url);
  await inTransaction(url, async (client) => {
    for (const { table, columns } of tables) {
      const params: unknown[] = [from.workflowId];
      const renamed: Record<string, string> = { workflow_uuid: to.workflowId, executor_id: to.executorId, application_version: to.appVersion };
      const values = columns.map((c) => (renamed[c] === undefined ? quote(c) : `$${params.push(renamed[c])}`));
      await client.query(`INSERT INTO dbos.${quote(table)} (${columns.map(quote).join(', ')}) SELECT ${values.join(', ')} FROM dbos.${quote(table)} WHERE workflow_uuid = $1`, params);
    }
    if (await hasMessages(url)) {
      const columns = (await dbosSchema(url)).get(MESSAGES.table)!;
      // A key that does not name the workflow (a send without an idempotency key: a random one) is made the copy's own all the same.
      const key = `CASE WHEN position($1 in ${MESSAGES.key}) > 0 THEN replace(${MESSAGES.key}, $1, $2) ELSE ${MESSAGES.key} || '::' || $2 END`;
      const values = columns.map((c) => (c === MESSAGES.destination ? '$2' : c === MESSAGES.key ? key : quote(c)));
      await client.query(`INSERT INTO dbos.${quote(MESSAGES.table)} (${columns.map(quote).join(', ')}) SELECT ${values.join(', ')} FROM dbos.${quote(MESSAGES.table)} WHERE ${MESSAGES.destination} = $1`, [from.workflowId, to.workflowId]);
    }
  });
}

/** Runs `body` in one transaction on a connection of its own, rolled back if it throws. */
async function inTransaction(url: string, body: (client: { query: (text: string, params?: unknown[]) => Promise<unknown> }) => Promise<void>): Promise<void> {
  const client = await database(url).connect();
  try {
    await client.query('BEGIN');
    await body(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Moves the rows of `from`'s names under `to`'s (status row: its executor and version too), in
 * one transaction, where they are: the status row first, which DBOS's other tables follow (their
 * keys refer to it ON UPDATE CASCADE), then whatever of theirs is left. `to` has no rows of its own.
 */
export async function moveRows(url: string, from: RowNames, to: RowNames): Promise<void> {
  const tables = await workflowTables(url);
  await inTransaction(url, async (client) => {
    for (const { table, columns } of tables) {
      const params: unknown[] = [from.workflowId, to.workflowId];
      const renamed: Record<string, string> = { executor_id: to.executorId, application_version: to.appVersion };
      const sets = ['workflow_uuid = $2', ...columns.filter((c) => renamed[c] !== undefined).map((c) => `${quote(c)} = $${params.push(renamed[c])}`)];
      await client.query(`UPDATE dbos.${quote(table)} SET ${sets.join(', ')} WHERE workflow_uuid = $1 OR workflow_uuid = $2`, params);
    }
    // Their destination moved with the status row (it cascades); their keys name it too.
    if (await hasMessages(url)) await client.query(`UPDATE dbos.${quote(MESSAGES.table)} SET ${MESSAGES.key} = replace(${MESSAGES.key}, $1, $2) WHERE ${MESSAGES.destination} = $2`, [from.workflowId, to.workflowId]);
  });
}

/**
 * Deletes the rows of every copy of a run (their workflow ids start with the run's key and `~`),
 * the status rows last (see workflowTables).
 */
async function deleteCopies(url: string, run: RunIdentity): Promise<void> {
  const prefix = `${run.runKey}~`;
  for (const { table } of (await workflowTables(url)).reverse()) await database(url).query(`DELETE FROM dbos.${quote(table)} WHERE left(workflow_uuid, length($1)) = $1`, [prefix]);
}

/** One life in a child process, from the state in `stateDir` (its names in its identity file). */
async function dbosLife(scenario: Scenario, config: DbosConfig, systemName: string, request: TierLifeRequest): Promise<TierLife> {
  const [databaseUrl, bundle] = await Promise.all([systemDatabase(config.backend), dbosChild()]);
  const run = identityOf(request.stateDir);
  const spec: DbosRunSpec = { scenario: serializeScenario(scenario), config, databaseUrl: lifeUrl(databaseUrl, run), run };
  const child = { engine: 'DBOS', bundle, runFileVariable: DBOS_ENV.run, picksVariable: DBOS_ENV.picks, timeoutVariable: DBOS_LIFE_TIMEOUT_VARIABLE };
  return runEngineLife(child, request, `${scenario.id} dbos ${systemName} life ${request.lifeIndex}`, spec);
}

/** Where a DBOS system's lives run: a child process each, or in killpoint's own process (in-process-life.ts). */
export type DbosLivesIn = 'process' | 'in-process';

/** Where DBOS lives run unless asked: proved equal to SIGKILL by `npm run differential:in-process`. */
export const DEFAULT_DBOS_TIER: DbosLivesIn = 'in-process';

/** DBOS in this process, loaded when its first in-process life starts. */
let inProcessModule: Promise<typeof import('./in-process-life.js')> | null = null;

/** One life in killpoint's own process, from the state in `stateDir`: what its child would answer. */
async function dbosLifeInProcess(scenario: Scenario, config: DbosConfig, systemName: string, request: TierLifeRequest, variant: DbosInProcessVariant): Promise<TierLife> {
  const [databaseUrl, module] = await Promise.all([systemDatabase(config.backend), (inProcessModule ??= import('./in-process-life.js'))]);
  const run = identityOf(request.stateDir);
  return module.runDbosLifeInProcess({
    scenario,
    config,
    what: `${scenario.id} dbos ${systemName} life ${request.lifeIndex}`,
    databaseUrl: lifeUrl(databaseUrl, run),
    run,
    request,
    timeoutMs: lifeTimeoutFrom(DBOS_LIFE_TIMEOUT_VARIABLE, request),
    ...variant,
  });
}

/** For the in-process tier's own test only: the pool left open at the kill (see in-process-life.ts). */
export interface DbosInProcessVariant {
  brokenPool?: 'left-open';
}

/** Runs `job` in the run's turn (run-names.ts: lives that run under the run's first names take turns with its copies). */
export type RunTurn = <T>(runKey: string, job: () => Promise<T>) => Promise<T>;

/**
 * A run's rows in the system database, as the part of its state outside its folder (named there by
 * its identity file): digested by their rows, copied under names of the copy's own, and the
 * copies' rows deleted when the session is done. `what` names the system in a cleanup's warning.
 * With `inTurn`, a copy is made in the run's turn: the rows it copies may be those of the run's
 * first names, under which a life of another copy may be running.
 */
export function dbosRowsState(backend: Backend, what: string, inTurn?: RunTurn): OutsideState {
  /** The run keys of the sessions whose states have been copied (their copies' rows are to delete). */
  const copied = new Set<string>();
  return {
    // A prepared folder's workflow has no row yet: no table to name, as rowsDigest writes it.
    nothing: '',
    digest: async (stateDir) => rowsDigest(await systemDatabase(backend), stateDir, backend === 'postgres'),
    copy: async (fromDir, toDir) => {
      const from = identityOf(fromDir);
      const to = copyIdentity(from);
      writeFileSync(join(toDir, IDENTITY_FILE), JSON.stringify(to));
      const url = await systemDatabase(backend);
      // From here rows of the run's copies may be written (even by a copy that then fails).
      copied.add(from.runKey);
      await (inTurn === undefined ? copyRows(url, from, to) : inTurn(from.runKey, () => copyRows(url, from, to)));
    },
    // The rows of a finished exploration are no state anyone will read again: a user's own
    // Postgres is not left to fill up with them. A run none of whose states was copied (its
    // backend never started, or it never got that far) has no such rows: nothing to do or say.
    // Best effort: a cleanup that fails must not hide what ended the exploration; it says so.
    release: async (initialDir) => {
      const run = identityOf(initialDir);
      if (!copied.delete(run.runKey)) return;
      try {
        await deleteCopies(await systemDatabase(backend), run);
      } catch (error) {
        process.stderr.write(`killpoint: dbos ${what}: the copies' rows were left in the system database: ${(error as Error).message}\n`);
      }
    },
  };
}

export function dbosTier(config: DbosConfig, systemName: string, livesIn: DbosLivesIn = 'process', variant: DbosInProcessVariant = {}): ProcessTier {
  const outside = dbosRowsState(config.backend, systemName);
  return {
    name: `dbos-${systemName}${livesIn === 'in-process' ? '-in-process' : ''}`,
    files: [
      { name: DBOS_STATE_FILES.shop, kind: 'sqlite' },
      { name: DBOS_STATE_FILES.outbox, kind: 'bytes' },
      { name: IDENTITY_FILE, kind: 'names' },
    ],
    // Fresh random keys are seeded by the life number, and the broken new-executor variant names its executor by it.
    readsLifeIndex: config.keys === 'random' || config.newExecutorEachLife,
    needs: dbosNeeds(config.backend),
    prepare: (scenario, stateDir) => {
      mkdirSync(stateDir, { recursive: true });
      Shop.create(scenario.shop, join(stateDir, DBOS_STATE_FILES.shop)).close();
      writeFileSync(join(stateDir, IDENTITY_FILE), JSON.stringify(runIdentity(scenario)));
    },
    life: (scenario, request) => (livesIn === 'in-process' ? dbosLifeInProcess(scenario, config, systemName, request, variant) : dbosLife(scenario, config, systemName, request)),
    stores: (scenario, stateDir) => readRunStores(join(stateDir, DBOS_STATE_FILES.shop), join(stateDir, DBOS_STATE_FILES.outbox), scenario.id),
    outside,
  };
}

/** How many workflows of copies (any exploration's) the backend's system database holds: for tests. */
export async function copiesInDatabase(backend: DbosConfig['backend']): Promise<number> {
  const { rows } = await database(await systemDatabase(backend)).query("SELECT count(*)::int AS n FROM dbos.workflow_status WHERE position('~' in workflow_uuid) > 0");
  return rows[0]!.n as number;
}
