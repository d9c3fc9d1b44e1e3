// DBOS's system database for the lives of this killpoint process, one per backend, started and
// prepared once (on the first run of a system that needs it) and shared by every run after it:
//
//   postgres  KILLPOINT_POSTGRES_URL when set (the user's server; killpoint only adds DBOS's
//             tables); otherwise a private cluster from this machine's server binaries, stopped
//             and removed when the process exits, and on Ctrl-C or SIGTERM.
//   pglite    PGlite served from this process (it dies with it; nothing on disk). Being in this
//             process, it would keep the process alive after its work (its server, its clients'
//             sockets, its own timers), so it is stopped once no session holds it (holdBackend).
//
// Preparing runs DBOS's own launch once in a child (it creates the database and its tables, and
// registers killpoint's queue), so no life pays for it; PGlite keeps its prepared data folder for
// the next process (see backends/pglite-server.ts). Anything that goes wrong here (no server
// binaries, a URL nobody answers at, a database DBOS cannot use) is bad input: a ProtocolError
// that names the backend and what failed (exit 2), with nothing left running.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Session, SystemUnderTest } from '../../engine.js';
import { runChild, withTempDir, LifeTimedOut } from '../../process/processes.js';
import { errorLine, ProtocolError } from '../../process/protocol.js';
import { dbosChild } from './bundle.js';
import type { Backend } from './config.js';
import { postgresBinDir, startPostgresCluster, type PostgresCluster } from './backends/postgres-cluster.js';
import { servePglite } from './backends/pglite-server.js';
import { givenPostgresUrl, maskUrl, POSTGRES_URL_VARIABLE } from './backends/postgres-url.js';
import { pgOfDbos, type Pool } from './pg.js';
import { DBOS_ENV, QUEUE_NAME, QUEUE_POLLING_MS, type DbosPrepareSpec } from './run-spec.js';

export { maskUrl, POSTGRES_URL_VARIABLE };

/** Creating DBOS's tables takes a second or two; a prepare that takes this long will never end. */
const PREPARE_TIMEOUT_MS = 60_000;

const databases = new Map<Backend, Promise<string>>();
/** How to stop what this process started for each backend. */
const stoppers = new Map<Backend, () => Promise<void>>();

const pools = new Map<string, Pool>();

/**
 * This process's own client of a system database (the tier reads and copies rows with it): one
 * pool per database, of one connection, which is all the parent's few queries per life need. It
 * lets the process exit when idle, and is ended when its backend stops.
 */
export function databaseClient(url: string): Pool {
  let pool = pools.get(url);
  if (pool === undefined) {
    const made = new (pgOfDbos().Pool)({ connectionString: url, max: 1, allowExitOnIdle: true });
    // An idle connection that drops (the backend stopped at the end of a check) is not an error
    // of any query: the next query connects again, and one that cannot fails with its own error.
    made.on('error', () => {});
    pools.set(url, (pool = made));
  }
  return pool;
}

async function endClient(url: string): Promise<void> {
  const pool = pools.get(url);
  pools.delete(url);
  await pool?.end().catch(() => {});
}

/** Sessions that hold each backend (see holdBackend), and the stop waiting for none to hold it. */
const holders = new Map<Backend, number>();
const idleStops = new Map<Backend, NodeJS.Timeout>();

/**
 * How long PGlite stays up once no session holds it: the next session of a command or a test
 * usually opens within it and finds the backend running, instead of starting it again.
 */
const IDLE_STOP_MS = 300;

/**
 * Holds the backend for a session: PGlite, served from this process, is stopped (its server, its
 * clients, PGlite itself) once no session has held it for IDLE_STOP_MS, so that a command exits
 * as soon as its work is done; its rows go with it, none of which a later session reads. A
 * Postgres backend runs outside this process and keeps nothing of it alive: holding it is nothing.
 * Returns the release (releasing twice is releasing once).
 */
export function holdBackend(backend: Backend): () => void {
  if (backend !== 'pglite') return () => {};
  clearTimeout(idleStops.get(backend));
  idleStops.delete(backend);
  holders.set(backend, (holders.get(backend) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (holders.get(backend) ?? 1) - 1;
    holders.set(backend, left);
    if (left > 0) return;
    // real clock: a grace period for the next session, not a wait on anything; unref'd, it never keeps the process alive by itself.
    const stop = setTimeout(() => {
      idleStops.delete(backend);
      if ((holders.get(backend) ?? 0) === 0) void stopBackend(backend);
    }, IDLE_STOP_MS);
    stop.unref();
    idleStops.set(backend, stop);
  };
}

/** The system with each of its sessions holding `backend` until the session is closed (see holdBackend). */
export function holdingBackend(system: SystemUnderTest, backend: Backend): SystemUnderTest {
  return {
    ...system,
    open: (scenario): Session => {
      const release = holdBackend(backend);
      let session: Session;
      try {
        session = system.open(scenario);
      } catch (error) {
        release();
        throw error;
      }
      return { ...session, close: async () => {
        try {
          await session.close();
        } finally {
          release();
        }
      } };
    },
  };
}

/** Whether this process has the backend running or starting (for tests). */
export function backendRunning(backend: Backend): boolean {
  return databases.has(backend);
}

/** The URL of the prepared system database of this backend (started on first use). */
export function systemDatabase(backend: Backend): Promise<string> {
  let url = databases.get(backend);
  if (url === undefined) {
    url = start(backend);
    databases.set(backend, url);
  }
  return url;
}

/**
 * Stops every backend this process started (the private cluster, the PGlite server) and forgets
 * them, so a later run starts afresh. A test calls it when it is done; a command needs not: the
 * cluster goes with the process anyway.
 */
export async function stopBackends(): Promise<void> {
  for (const backend of [...databases.keys()]) await stopBackend(backend);
}

async function stopBackend(backend: Backend): Promise<void> {
  const started = databases.get(backend);
  if (started === undefined) return;
  const url = await started.catch(() => null);
  // Stopped meanwhile, or started again by another caller after a stop: not this call's to stop.
  if (databases.get(backend) !== started) return;
  databases.delete(backend);
  const stop = stoppers.get(backend);
  stoppers.delete(backend);
  if (url !== null) await endClient(url);
  await stop?.();
}

async function start(backend: Backend): Promise<string> {
  if (backend === 'pglite') {
    let served;
    try {
      served = await servePglite(`queue-${QUEUE_NAME}-${QUEUE_POLLING_MS}ms`);
    } catch (error) {
      throw new ProtocolError(`dbos pglite: PGlite did not start: ${(error as Error).message}`);
    }
    const forget = removeOnExit(() => served.removeNow());
    stoppers.set(backend, async () => {
      await served.stop();
      forget();
    });
    if (!served.prepared) {
      await prepare(backend, served.url);
      await served.keepPrepared();
    }
    return served.url;
  }
  const given = givenPostgresUrl();
  if (given !== null) {
    await prepare(backend, given);
    return given;
  }
  const binDir = postgresBinDir();
  if (binDir === null) throw new ProtocolError(`dbos postgres: no Postgres server binaries on this machine (looked for initdb and pg_ctl in /usr/lib/postgresql/*/bin and $KILLPOINT_POSTGRES_BIN); set ${POSTGRES_URL_VARIABLE} to a server's URL, or use a pglite system`);
  let cluster: PostgresCluster;
  try {
    cluster = await startPostgresCluster(binDir);
  } catch (error) {
    throw new ProtocolError(`dbos postgres: the private cluster did not start: ${(error as Error).message}`);
  }
  const forget = removeOnExit(() => cluster.stop());
  stoppers.set(backend, async () => {
    cluster.stop();
    forget();
  });
  await prepare(backend, cluster.url);
  return cluster.url;
}

/**
 * What a backend leaves (the private cluster, PGlite's data folder) goes when the process goes:
 * on a plain exit, and on SIGINT or SIGTERM (a process killed by a signal runs no exit handler).
 * `remove` must be synchronous. The signal handler goes first (prepended): it removes and, unless another handler is still to run (the real tier's, which reaps the
 * children, removes their folders and raises the signal again), raises the signal again itself.
 */
function removeOnExit(remove: () => void): () => void {
  const onExit = (): void => remove();
  const forget = (): void => {
    process.off('exit', onExit);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    remove();
    forget();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  process.on('exit', onExit);
  process.prependListener('SIGINT', onSignal);
  process.prependListener('SIGTERM', onSignal);
  return forget;
}

async function prepare(backend: Backend, url: string): Promise<void> {
  const bundle = await dbosChild();
  await withTempDir('killpoint-dbos-prepare-', async (dir) => {
    const specPath = join(dir, 'prepare.json');
    const spec: DbosPrepareSpec = { databaseUrl: url, backend };
    writeFileSync(specPath, JSON.stringify(spec));
    const what = `dbos ${backend}: preparing DBOS's system database at ${maskUrl(url)}`;
    let exit;
    try {
      exit = await runChild(process.execPath, [bundle], { ...process.env, [DBOS_ENV.prepare]: specPath }, undefined, PREPARE_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof LifeTimedOut) throw new ProtocolError(`${what}: no answer within ${PREPARE_TIMEOUT_MS / 1000} s; it was stopped`);
      throw error;
    }
    if (exit.code !== 0) throw new ProtocolError(`${what} failed${errorLine(exit.stderr) || ` (exit ${exit.code ?? exit.signal})`}`);
  });
}
