// The ports a Restate session listens on. The server's three (ingress, admin, node-to-node) are
// the system's when it has free ones, or those KILLPOINT_RESTATE_PORT names (it, and the next
// two), checked free first: one in use is bad input, said before anything starts. A service's port
// must stay its own across its lives (the server calls the deployment at the address it was
// registered with), so it is taken below the kernel's range of ports for outgoing connections:
// while a killed life's port is closed, no connection of the server's can be given it.

import { createServer } from 'node:net';
import { ProtocolError } from '../../process/protocol.js';

/** The first of three consecutive ports for the server (ingress, admin, node-to-node). */
export const RESTATE_PORT_VARIABLE = 'KILLPOINT_RESTATE_PORT';

/** Whether nobody listens on 127.0.0.1:port now; with port 0, the port the system gave. */
function tryListen(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(null));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : null));
    });
  });
}

export interface ServerPorts {
  ingress: number;
  admin: number;
  node: number;
}

/** The server's ports: those KILLPOINT_RESTATE_PORT names, each checked free, or three the system gives. */
export async function serverPorts(): Promise<ServerPorts> {
  const raw = process.env[RESTATE_PORT_VARIABLE];
  if (raw !== undefined && raw !== '') {
    const first = Number(raw);
    if (!Number.isInteger(first) || first < 1024 || first > 65533) throw new ProtocolError(`restate: ${RESTATE_PORT_VARIABLE}=${raw}: expected a port from 1024 to 65533 (it and the next two are the server's)`);
    const ports = [first, first + 1, first + 2];
    for (const port of ports) {
      if ((await tryListen(port)) === null) throw new ProtocolError(`restate: port ${port} is in use (${RESTATE_PORT_VARIABLE}=${raw} gives the server ports ${ports.join(', ')}); choose other ports or unset it`);
    }
    return { ingress: ports[0]!, admin: ports[1]!, node: ports[2]! };
  }
  const given: number[] = [];
  while (given.length < 3) {
    const port = await tryListen(0);
    if (port === null) throw new ProtocolError('restate: the system gave no free port for the server');
    if (!given.includes(port)) given.push(port);
  }
  return { ingress: given[0]!, admin: given[1]!, node: given[2]! };
}

/** Where services listen: below the kernel's range for outgoing connections (32768 and up on Linux). */
const SERVICE_PORTS = { from: 20_000, count: 10_000 };
/** The next service port to try: each process starts at a place of its own, so side-by-side processes seldom meet. */
let nextServicePort = SERVICE_PORTS.from + (process.pid * 7919) % SERVICE_PORTS.count;

/** A port for a run's service, free now, not given before by this process. */
export async function servicePort(): Promise<number> {
  for (let tried = 0; tried < SERVICE_PORTS.count; tried++) {
    const port = nextServicePort;
    nextServicePort = SERVICE_PORTS.from + ((nextServicePort - SERVICE_PORTS.from + 1) % SERVICE_PORTS.count);
    if ((await tryListen(port)) !== null) return port;
  }
  throw new ProtocolError(`restate: no free port for a service from ${SERVICE_PORTS.from} to ${SERVICE_PORTS.from + SERVICE_PORTS.count - 1}`);
}
