// A private Postgres cluster for one killpoint process: initdb into a temp folder, start it on
// 127.0.0.1 at a free port with trust auth and without durability it does not need (fsync off: the
// cluster lives only as long as the sweep, and a kill is of the agent, never of Postgres), and
// stop and remove it afterwards. initdb refuses to run as root, so as root the cluster belongs to
// the `postgres` user. Stopping is synchronous, so it can run from an exit or signal handler. A
// killpoint process killed with SIGKILL runs no handler: its watcher then stops the server (an
// immediate shutdown, SIGQUIT, to its process group: pg_ctl starts the server in a session of its
// own) and removes the folder (src/harness/process/orphan-watcher.ts).

import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ownedTempDir } from '../../../process/owned-temp-dirs.js';
import { watchGroup } from '../../../process/orphan-watcher.js';

/** Where Debian and Ubuntu put the server binaries; the newest version found is used. */
/** Where Debian's postgresql packages put the server binaries, newest first. */
export const POSTGRES_BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/14/bin'];

/** The folder with initdb, pg_ctl and postgres, or null when this machine has none. */
export function postgresBinDir(): string | null {
  const fromEnv = process.env.KILLPOINT_POSTGRES_BIN;
  if (fromEnv) return existsSync(join(fromEnv, 'pg_ctl')) ? fromEnv : null;
  return POSTGRES_BIN_DIRS.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) ?? null;
}

export interface PostgresCluster {
  url: string;
  dir: string;
  port: number;
  /** Stops the server (immediately: nothing in it must survive) and removes its folder. Synchronous; idempotent. */
  stop(): void;
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

interface Runner {
  /** Runs a server binary as the cluster's owner. */
  run(bin: string, args: string[]): { status: number | null; output: string };
  user: string;
}

function runnerFor(binDir: string): Runner {
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? 'postgres' : (process.env.USER ?? 'you');
  return {
    user,
    run(bin, args) {
      const command = asRoot ? 'runuser' : join(binDir, bin);
      const argv = asRoot ? ['-u', 'postgres', '--', join(binDir, bin), ...args] : args;
      const r = spawnSync(command, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
      return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
    },
  };
}

/** Starts a private cluster; throws with initdb's or pg_ctl's own words when it cannot. */
export async function startPostgresCluster(binDir: string): Promise<PostgresCluster> {
  const runner = runnerFor(binDir);
  const folder = ownedTempDir('killpoint-postgres-');
  const dir = folder.dir;
  const data = join(dir, 'data');
  if (runner.user === 'postgres') {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  let started = false;
  let unwatch = (): void => {};
  const stop = (): void => {
    if (started) {
      runner.run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      started = false;
    }
    unwatch();
    folder.release();
  };
  try {
    const init = runner.run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    if (init.status !== 0) throw new Error(`initdb failed (exit ${init.status}): ${lastLines(init.output)}`);
    const port = await freePort();
    const options = `-h 127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
    const start = runner.run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', options, '-w', '-t', '30', 'start']);
    started = true;
    if (start.status !== 0) throw new Error(`pg_ctl start failed (exit ${start.status}): ${lastLines(start.output)}`);
    unwatch = watchGroup(serverPid(data), 'SIGQUIT');
    return { url: `postgres://postgres@127.0.0.1:${port}/killpoint_dbos`, dir, port, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

/** The server's pid, the first line of the pid file it writes in its data folder once it runs. */
function serverPid(data: string): number {
  const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${join(data, 'postmaster.pid')}: expected the server's pid on its first line`);
  return pid;
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' / ');
}
