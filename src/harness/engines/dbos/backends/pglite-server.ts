// PGlite, DBOS's system database with nothing to install, served over a socket from the killpoint
// process: every life is a child that connects to it on 127.0.0.1, so the database outlives each
// child's SIGKILL as a real database server would. PGlite is loaded only here, when a pglite
// system first runs (users of the other engines need not have it installed).
//
// A fresh PGlite takes about 6 s to create (its initdb runs in WebAssembly), and DBOS's tables
// more on top. So once prepared, its data folder is kept under the project's ignored tmp/ folder,
// named by the versions of PGlite and DBOS and the preparation's own settings; a later process
// copies it into a temp folder of its own and opens that (about a second), without preparing.
// (Loading PGlite from a tarball instead keeps the process alive after its work is done.)

import { cpSync, existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { cacheDir, installedVersion } from '../../../process/package-paths.js';
import { ownedTempDir } from '../../../process/owned-temp-dirs.js';
import { servePgliteSocket, type PgliteSocket } from './pglite-socket.js';

export interface ServedPglite {
  url: string;
  /** The temp folder PGlite keeps its data in (removed by stop, or by removeNow). */
  dir: string;
  /** True when the data folder is a copy of a prepared one (DBOS's tables and queue are there). */
  prepared: boolean;
  /** Keeps the prepared data folder for the processes after this one (PGlite is closed and opened again). */
  keepPrepared(): Promise<void>;
  stop(): Promise<void>;
  /** Removes the data folder at once (from an exit or signal handler; the process is going anyway). */
  removeNow(): void;
}

const CACHE_DIR = cacheDir('dbos-pglite');


/** `settings` names what the preparation did (a preparation that changes must not reuse an old one). */
export async function servePglite(settings: string): Promise<ServedPglite> {
  const { PGlite } = await import('@electric-sql/pglite');
  const cached = join(CACHE_DIR, `pglite-${installedVersion('@electric-sql/pglite')}-dbos-${installedVersion('@dbos-inc/dbos-sdk')}-${settings}`);
  // Served from this process, PGlite ends with it; its folder names this process, so that the
  // watcher, or the next killpoint process, removes it should this one be killed with SIGKILL.
  const folder = ownedTempDir('killpoint-pglite-');
  const dir = folder.dir;
  const data = join(dir, 'data');
  const prepared = existsSync(cached);
  if (prepared) cpSync(cached, data, { recursive: true });

  let db: PGlite;
  let server: PgliteSocket;
  let port = 0;
  const open = async (): Promise<void> => {
    db = await PGlite.create(data);
    server = await servePgliteSocket(db, port);
    port = server.port;
  };
  // Closing PGlite also clears its own timers (Postgres's idle statistics flush, 10 s), which
  // would otherwise keep the process alive after its work.
  const close = async (): Promise<void> => {
    await server.close();
    await db.close();
  };
  try {
    await open();
  } catch (error) {
    folder.release();
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dir,
    prepared,
    async keepPrepared() {
      if (prepared) return;
      await close();
      // Copied under a name of its own, then renamed: a concurrent reader never sees half a folder.
      const temp = `${cached}.${process.pid}.tmp`;
      cpSync(data, temp, { recursive: true });
      try {
        renameSync(temp, cached);
      } catch {
        rmSync(temp, { recursive: true, force: true }); // another process kept one first
      }
      await open(); // on the same port: the URL stays valid
    },
    async stop() {
      await close();
      folder.release();
    },
    removeNow() {
      folder.release();
    },
  };
}
