// DBOS held by an in-process life's fence (src/harness/in-process/fence.ts), for the bundled
// engine's lives (in-process-life.ts) and a user's workflow's (module/life.ts) alike: what makes
// the kill as final as SIGKILL.
//
// Everything DBOS writes goes through one pool of connections to the system database, made here:
// at the kill point each of its sockets is destroyed (as the kernel closes a killed process's
// sockets: what was sent is sent, nothing more is), a query in flight fails with the life's
// LifeKilled (DBOS retries only connection errors, so it gives up at once), and every later
// connection or query is refused. DBOS's logger goes quiet, as a killed process prints nothing
// more. Whatever DBOS still runs for the killed life (a parallel step, the wait for the workflow's
// output) can reach nothing.
//
// DBOS is one per process: the life's end (or its kill) shuts it down and clears its
// registrations, and the next life waits for that before it launches again under the same
// executor id and version, which is what makes DBOS recover the workflow. So lives run one at a
// time (runInProcessLife sees to it), and a killed life's pending work never meets the next one's
// DBOS: it holds the executor it started with, whose pool is cut.

import { Socket } from 'node:net';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { LifeKilled, type LifeFence } from '../../in-process/fence.js';
import { pgOfDbos } from './pg.js';
import type { Backend } from './config.js';

/** DBOS's own pool size when it makes its pool (its DEFAULT_POOL_SIZE); PGlite's lives use one connection, as the child's do. */
const DBOS_POOL_SIZE = 10;

export interface HeldDbosJob {
  /** Names the life in errors. */
  what: string;
  /** The system database's URL for this life's connections. */
  databaseUrl: string;
  backend: Backend;
  /** For the tier's own test only: the pool left open at the kill, so DBOS goes on recording for the killed life. */
  brokenPool?: 'left-open';
}

/** What DBOS is configured with for a life held by its fence (DBOS's systemDatabasePool and logger). */
export interface HeldDbosSettings {
  systemDatabasePool: unknown;
  logger: unknown;
}

/**
 * The last life's DBOS being shut down: the next life launches once it is. Kept on the process,
 * not in this file: DBOS is one per process, and a user's module's life is bundled with a copy of
 * this file of its own, whose lives must wait for the bundled engine's DBOS and the other way round.
 */
const LAST_SHUTDOWN = Symbol.for('killpoint.dbos.lastShutdown');
const processWide = globalThis as { [LAST_SHUTDOWN]?: Promise<void> };

/**
 * Once the last life's DBOS is shut down, DBOS's pool and logger for this life, held by its fence,
 * and DBOS itself held after the pool (so shut down once it can no longer write).
 */
export async function dbosHeldBy(fence: LifeFence, job: HeldDbosJob): Promise<HeldDbosSettings> {
  await processWide[LAST_SHUTDOWN];
  const systemDatabasePool = poolThrough(fence, job);
  fence.hold(DBOS, () => {
    processWide[LAST_SHUTDOWN] = DBOS.shutdown({ deregister: true }).catch((error: unknown) => {
      process.stderr.write(`killpoint: ${job.what}: DBOS did not shut down cleanly: ${(error as Error).message}\n`);
    });
  });
  return { systemDatabasePool, logger: loggerThrough(fence) };
}

interface CutOffPool {
  connect(): Promise<unknown>;
  query(...args: unknown[]): Promise<unknown>;
  on(event: 'error', listener: () => void): void;
}

/**
 * DBOS's pool for one life, made of sockets this process can destroy, held by the life's fence.
 * Refusing `connect` is not enough: a query that waited for a connection before the kill is handed
 * one the pool opens after it, without asking `connect`. So once cut, every socket the pool asks
 * for fails before it opens.
 */
export function poolThrough(fence: LifeFence, job: HeldDbosJob): CutOffPool {
  const sockets = new Set<Socket>();
  let cut = false;
  const Pool = pgOfDbos().Pool as unknown as new (options: object) => CutOffPool;
  const pool = new Pool({
    connectionString: job.databaseUrl,
    max: job.backend === 'pglite' ? 1 : DBOS_POOL_SIZE,
    stream: () => {
      const socket = new Socket();
      if (cut) {
        socket.connect = (() => {
          process.nextTick(() => socket.destroy(new LifeKilled(job.what)));
          return socket;
        }) as typeof socket.connect;
        return socket;
      }
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      return socket;
    },
  });
  // DBOS leaves a pool it did not make to its maker; an idle connection cut at the kill is nobody's error.
  pool.on('error', () => {});
  if (job.brokenPool === 'left-open') return pool;
  return fence.hold(pool, (held) => {
    cut = true;
    const refuse = (): Promise<never> => Promise.reject(new LifeKilled(job.what));
    held.connect = refuse;
    held.query = refuse;
    for (const socket of sockets) socket.destroy(new LifeKilled(job.what));
  });
}

/**
 * DBOS's logger for one life: its errors on stderr, as the child's console logger at level
 * "error" writes them, until the kill; nothing after it (what DBOS then reports is the killed
 * life's pending work failing against its cut pool, which a killed process would never print).
 */
function loggerThrough(fence: LifeFence) {
  const quiet = (): void => {};
  return {
    info: quiet,
    debug: quiet,
    warn: quiet,
    error(inputError: unknown, metadata?: { stack?: string }): void {
      if (fence.killed) return;
      if (inputError instanceof Error || metadata?.stack === undefined) console.error(inputError);
      else console.error(inputError, '\n', metadata.stack);
    },
  };
}
