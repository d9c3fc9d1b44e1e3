// The Restate server of one session: the installed restate-server binary started in a private temp
// folder (its whole state: a fresh folder is a fresh server) on free ports, ready once its admin
// and ingress answer their health checks, stopped with SIGKILL and its folder removed when the
// session closes. It is a watched child (src/harness/process/processes.ts), so Ctrl-C kills it and
// removes its folder, and killpoint's watcher does both should killpoint itself die
// (orphan-watcher.ts). Nothing in it must outlive the session: it is killed, not asked to stop
// (it did not stop on SIGTERM within seconds when tried), and its data goes with its folder.
//
// A server that cannot start (no binary, a port in use, no answer within its limit) is bad input:
// a ProtocolError naming the cause (exit 2), with nothing left running.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { heldTempDir, startChild, type StartedChild } from '../../process/processes.js';
import { errorLine, ProtocolError } from '../../process/protocol.js';
import { restateServerBinary } from './packages.js';
import { fixedPorts, serverPorts, type ServerPorts } from './ports.js';
import { waitMs } from './wait.js';

/** Seconds the server may take to answer its health checks (it takes about half a second). */
export const SERVER_START_TIMEOUT_VARIABLE = 'KILLPOINT_RESTATE_START_TIMEOUT_S';
const DEFAULT_START_TIMEOUT_MS = 30_000;
/** How long one health request may take. */
const HEALTH_REQUEST_MS = 1_000;

export interface RestateServer {
  ingressUrl: string;
  adminUrl: string;
  /** How long it took to answer its health checks, in ms (for the bench). */
  startMs: number;
  /** Kills it and removes its folder; stopping twice is stopping once. */
  stop(): Promise<void>;
}

function startTimeoutMs(): number {
  const raw = process.env[SERVER_START_TIMEOUT_VARIABLE];
  const seconds = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_START_TIMEOUT_MS;
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(HEALTH_REQUEST_MS) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** How many sets of ports a start tries before it gives up on finding one nobody took meanwhile. */
const START_ATTEMPTS = 5;

/** The server could not bind a port: found free, then taken by another process before the server bound it. */
class PortTaken extends ProtocolError {}

/**
 * Starts a server; resolves once it answers, or throws a ProtocolError with nothing left running.
 * A port is found free and let go before the server binds it, a few hundred milliseconds later:
 * another process's server (killpoint runs side by side, a test file beside a sweep) can take it
 * meanwhile, and the server exits with "Address in use". It is started again on other ports, unless
 * KILLPOINT_RESTATE_PORT chose them.
 */
export async function startRestateServer(portsFor: () => Promise<ServerPorts> = serverPorts): Promise<RestateServer> {
  for (let attempt = 1; ; attempt++) {
    const ports = await portsFor();
    try {
      return await startOn(ports);
    } catch (error) {
      if (!(error instanceof PortTaken) || fixedPorts() || attempt >= START_ATTEMPTS) throw error;
    }
  }
}

async function startOn(ports: ServerPorts): Promise<RestateServer> {
  const binary = restateServerBinary();
  const folder = heldTempDir('killpoint-restate-server-');
  const serverTemp = join(folder.dir, 'tmp');
  mkdirSync(serverTemp);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ports.ingress}`,
    RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${ports.admin}`,
    RESTATE_DISABLE_TELEMETRY: 'true',
    RESTATE_LOG_FILTER: 'error',
    // One line a record, without colour codes: the last line of what it printed says why it stopped.
    RESTATE_LOG_FORMAT: 'compact',
    RESTATE_LOG_DISABLE_ANSI_CODES: 'true',
    // One partition instead of the default 24: a session's few invocations need no more, and each
    // partition's processor keeps the server busy (idle, 24 took an eighth of a core, one a
    // fiftieth; the Restate test files took a fifth less CPU with one).
    RESTATE_DEFAULT_NUM_PARTITIONS: '1',
    // Its invoker makes a folder of its own in the system's temp folder (invoker-<id>) the first
    // time it calls a service, and leaves it: sweeps that start thousands of servers left
    // thousands. In the server's own folder, they go with it.
    TMPDIR: serverTemp,
  };
  const args = ['--no-logo', '--base-dir', join(folder.dir, 'data'), '--node-name', 'killpoint', '--bind-address', `127.0.0.1:${ports.node}`, '--listen-mode', 'tcp'];
  // real clock: how long the server took to start, reported by the bench.
  const started = performance.now();
  let child: StartedChild;
  try {
    child = startChild(binary, args, env, { cwd: folder.dir, stdin: 'ignore' });
  } catch (error) {
    folder.release();
    throw new ProtocolError(`restate: could not start ${binary}: ${(error as Error).message}`);
  }
  const ended = child.awaitEnd();
  let exited: string | null = null;
  ended.then(
    (exit) => (exited = `it exited (${exit.code ?? exit.signal})${errorLine(exit.stderr)}`),
    (error: Error) => (exited = error.message),
  );
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      child.kill();
      await ended.catch(() => undefined);
      folder.release();
    })());

  const adminUrl = `http://127.0.0.1:${ports.admin}`;
  const ingressUrl = `http://127.0.0.1:${ports.ingress}`;
  const limit = startTimeoutMs();
  // real clock: the time limit of a wait on another process.
  const until = performance.now() + limit;
  for (;;) {
    if (exited !== null) {
      await stop();
      const why = `restate: the server did not start: ${exited}`;
      throw /Address (already )?in use/i.test(exited) ? new PortTaken(why) : new ProtocolError(why);
    }
    if ((await answers(`${adminUrl}/health`)) && (await answers(`${ingressUrl}/restate/health`))) break;
    if (performance.now() > until) {
      await stop();
      // What it printed before it was stopped says why, when anything does.
      const printed = await ended.then((exit) => errorLine(exit.stderr), () => '');
      throw new ProtocolError(`restate: the server on ports ${ports.ingress}, ${ports.admin} and ${ports.node} did not answer its health checks within ${limit / 1000} s (${SERVER_START_TIMEOUT_VARIABLE} sets the limit); it was stopped${printed}`);
    }
    await waitMs(20);
  }
  return { ingressUrl, adminUrl, startMs: Math.round(performance.now() - started), stop };
}
