// The ports a Restate session listens on, all below the kernel's range of ports for outgoing
// connections (32768 and up on Linux), each found free. A port is found free and then let go
// before its owner binds it: one in that range could meanwhile be given to any outgoing
// connection (a sweep's lives make many), and the server would fail to start ("Address in use",
// seen in an in-process sweep). A service's port must also stay its own across its lives (the
// server calls the deployment at the address it was registered with): while a killed life's port
// is closed, no connection can be given it. The server's three (ingress, admin, node-to-node) are
// those KILLPOINT_RESTATE_PORT names instead when it is set (it, and the next two), checked free
// first: one in use is bad input, said before anything starts.

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

/** Whether KILLPOINT_RESTATE_PORT chooses the server's ports. */
export const fixedPorts = (): boolean => (process.env[RESTATE_PORT_VARIABLE] ?? '') !== '';

/** The server's ports: those KILLPOINT_RESTATE_PORT names, each checked free, or three of our range. */
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
  return { ingress: await SERVER_PORTS.take(), admin: await SERVER_PORTS.take(), node: await SERVER_PORTS.take() };
}

/**
 * Ports that fetch refuses to connect to (the Fetch standard's "bad ports" above 1024): killpoint
 * asks the server's ingress and admin over fetch, and a server on 10080 never answered its health
 * checks (a sweep stopped so, three times, before this was known).
 */
const FETCH_REFUSES = new Set([1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080]);

/** A range of ports of our own, below the kernel's range for outgoing connections, and where in it to look next. */
export class PortRange {
  /** Each process starts at a place of its own, so side-by-side processes seldom meet. */
  private next: number;

  constructor(
    private readonly from: number,
    private readonly count: number,
    private readonly what: string,
  ) {
    this.next = from + (process.pid * 7919) % count;
  }

  /** A port of the range, free now, not given before by this process. */
  async take(): Promise<number> {
    for (let tried = 0; tried < this.count; tried++) {
      const port = this.next;
      this.next = this.from + ((this.next - this.from + 1) % this.count);
      if (!FETCH_REFUSES.has(port) && (await tryListen(port)) !== null) return port;
    }
    throw new ProtocolError(`restate: no free port for ${this.what} from ${this.from} to ${this.from + this.count - 1}`);
  }
}

const SERVICE_PORTS = new PortRange(20_000, 10_000, 'a service');
const SERVER_PORTS = new PortRange(10_000, 10_000, 'the server');

/** A port for a run's service, free now, not given before by this process. */
export const servicePort = (): Promise<number> => SERVICE_PORTS.take();

