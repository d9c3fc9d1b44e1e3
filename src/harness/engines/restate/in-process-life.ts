// One Restate life inside killpoint's own process (the in-process tier, src/harness/in-process/):
// the child's life (life.ts), its service served on an HTTP/2 endpoint of this process instead of
// a process of its own. Loaded only when the first such life starts, so the SDK stays out of a
// process that never runs one.
//
// What the server sees of a killed process is its connections reset and its port closed. So the
// endpoint is held by the life's fence: at the kill point every connection is reset and the
// listener closed, and what the killed life's handler still runs (a parallel call's closure) can
// send the server nothing more; the shop is opened through the fence too. The recovery is a fresh
// endpoint on the same port, which the server's retry calls, as it calls a fresh process.

// The SDK calls Promise.withResolvers, which Node 20 lacks: loaded before it, as the child does.
import './shim.js';
import http2 from 'node:http2';
import type { Socket } from 'node:net';
import * as restate from '@restatedev/restate-sdk';
import type { Scenario } from '../../../model/scenario.js';
import { shopThrough, type LifeFence } from '../../in-process/fence.js';
import { runInProcessLife } from '../../in-process/in-process-life.js';
import type { TierLife, TierLifeRequest } from '../../process/process-lives.js';
import type { RestateConfig } from './config.js';
import { runRestateLife } from './life.js';
import type { RunIdentity } from './run-spec.js';
import type { RestateServer } from './server.js';

export interface RestateInProcessJob {
  scenario: Scenario;
  config: RestateConfig;
  /** Names the life in errors. */
  what: string;
  server: RestateServer;
  run: RunIdentity;
  request: TierLifeRequest;
  timeoutMs: number;
  /** For the tier's own test only: the endpoint's connections left open at the kill (its listener closed), so the killed life's handler goes on talking to the server. */
  brokenEndpoint?: 'connections-left-open';
}

export function runRestateLifeInProcess(job: RestateInProcessJob): Promise<TierLife> {
  const { scenario, config, request, server } = job;
  return runInProcessLife({
    stateDir: request.stateDir,
    engine: 'Restate',
    what: job.what,
    killAfter: request.killAfter,
    timeoutMs: job.timeoutMs,
    run: ({ emit, onPick }, fence, workDir) =>
      runRestateLife({
        scenario,
        config,
        stateDir: workDir,
        ingressUrl: server.ingressUrl,
        adminUrl: server.adminUrl,
        run: job.run,
        lifeIndex: request.lifeIndex,
        picks: [...request.picks],
        emit,
        onPick,
        serve: serveThrough(fence, job.brokenEndpoint),
        openShop: shopThrough(fence),
      }),
  });
}

/** Serves a service on an endpoint held by the fence: at the kill, every connection reset and the listener closed (also for a user's service, module/system.ts). */
export function serveThrough(fence: LifeFence, broken?: 'connections-left-open') {
  return async (service: restate.ServiceDefinition<string, unknown>, port: number): Promise<void> => {
    const connections = new Set<Socket>();
    const endpoint = http2.createServer(restate.createEndpointHandler({ services: [service], bidirectional: true, logger: () => {} }));
    endpoint.on('connection', (socket: Socket) => {
      connections.add(socket);
      socket.on('close', () => connections.delete(socket));
    });
    fence.hold(endpoint, (held) => {
      if (broken === undefined) for (const socket of connections) socket.resetAndDestroy();
      held.close();
    });
    await new Promise<void>((resolve, reject) => endpoint.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  };
}
