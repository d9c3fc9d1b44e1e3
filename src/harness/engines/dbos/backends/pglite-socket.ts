// PGlite served over TCP to many connections: the parent's client and every life's DBOS. PGlite is
// one Postgres session, so the connections take turns, and a turn is a whole unit of the protocol,
// never a single message:
//
// - an extended query (Parse, Bind, Describe, Execute, ... up to its Sync) or a simple query runs
//   with no other connection's message in between. Its messages arrive as separate writes, so
//   under load they can arrive in several reads; a message of another connection run between them
//   would take the unnamed statement or portal they share in the one session, or be skipped by a
//   session that is discarding messages after an error until the next Sync (it then answers with
//   nothing but ReadyForQuery: a query with no row and no error);
// - an explicit transaction keeps the turn until it ends;
// - a connection that goes away in the middle of its turn (a life killed with SIGKILL) has its unit
//   ended for it (a Sync) and its transaction rolled back before the next connection runs, so the
//   session it leaves is idle, as a real server's next session would be.
//
// Each message is run synchronously (PGlite's execProtocolRawSync), so a turn is given up or passed
// on only between messages. (@electric-sql/pglite-socket queues single messages from every
// connection into the one session, and ends nothing for a connection that goes, hence this.)

import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

/** The first message's codes that are no startup: a request for TLS or GSS encryption (answered "no"), a cancel (not supported). */
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

const SYNC = Uint8Array.from([0x53, 0, 0, 0, 4]);
const TERMINATE = 0x58;
/** The messages that end a unit: Sync (extended query) and Query (simple query). */
const UNIT_ENDS = new Set([0x53, 0x51]);

function simpleQuery(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`, 'utf8');
  const message = Buffer.alloc(5 + text.length);
  message[0] = 0x51;
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return message;
}
const ROLLBACK = simpleQuery('ROLLBACK');

class Connection {
  buffer: Buffer = Buffer.alloc(0);
  started = false;
  closed = false;
  /** Between the first message of a unit and its end (see UNIT_ENDS). */
  inUnit = false;
  constructor(readonly socket: Socket) {}

  /** The next whole message in the buffer, taken out of it, or null when it holds none yet. */
  next(): Buffer | null {
    const header = this.started ? 5 : 4;
    if (this.buffer.length < header) return null;
    const length = this.started ? 1 + this.buffer.readInt32BE(1) : this.buffer.readInt32BE(0);
    if (this.buffer.length < length) return null;
    const message = this.buffer.subarray(0, length);
    this.buffer = this.buffer.subarray(length);
    return message;
  }
}

export interface PgliteSocket {
  /** The port it listens on, on 127.0.0.1. */
  port: number;
  /** Closes every connection and stops listening. */
  close(): Promise<void>;
}

/** Serves `db` on 127.0.0.1 at `port` (0: any free port). Its listening socket does not keep the process alive. */
export async function servePgliteSocket(db: PGlite, port: number): Promise<PgliteSocket> {
  const connections = new Set<Connection>();
  /** The connection whose turn it is, and those waiting for theirs, first come first served. */
  let owner: Connection | null = null;
  const waiting: Connection[] = [];

  const run = (message: Uint8Array): Uint8Array => db.execProtocolRawSync(message);

  /**
   * Ends the turn of a connection that went away mid-turn as a real server ends a session whose
   * client is gone: nothing it had not committed is committed. A unit without its Sync is rolled
   * back, then ended (a session discarding messages after an error ignores the ROLLBACK and only
   * needs the Sync); then an explicit transaction is rolled back.
   */
  const abandon = (c: Connection): void => {
    try {
      if (c.inUnit) {
        run(ROLLBACK);
        run(SYNC);
      }
      if (db.isInTransaction()) run(ROLLBACK);
    } catch {
      // PGlite itself failed: the connections after it will see its errors.
    }
    c.inUnit = false;
  };

  const handOn = (): void => {
    while (owner === null && waiting.length > 0) serve(waiting.shift()!);
  };

  /** Runs the connection's whole messages while it is its turn; waits for its turn otherwise. */
  const serve = (c: Connection): void => {
    if (owner !== null && owner !== c) {
      if (!waiting.includes(c)) waiting.push(c);
      return;
    }
    if (c.closed) {
      if (owner === c) abandon(c);
      owner = null;
      return handOn();
    }
    for (let message = c.next(); message !== null; message = c.next()) {
      if (!c.started) {
        const code = message.readInt32BE(4);
        if (code === SSL_REQUEST || code === GSS_REQUEST) {
          c.socket.write('N');
          continue;
        }
        if (code === CANCEL_REQUEST) {
          c.socket.destroy();
          break;
        }
        // The startup message: PGlite answers it whole (authentication, parameters, ReadyForQuery).
        c.started = true;
        c.inUnit = false;
      } else if (message[0] === TERMINATE) {
        c.socket.end();
        break;
      } else {
        c.inUnit = !UNIT_ENDS.has(message[0]!);
      }
      owner = c;
      let reply: Uint8Array;
      try {
        reply = run(message);
      } catch (error) {
        // PGlite failed on it: this connection cannot go on; the next ones get an idle session if any.
        c.socket.destroy(error as Error);
        abandon(c);
        owner = null;
        break;
      }
      if (reply.length > 0 && c.socket.writable) c.socket.write(reply);
      if (!c.inUnit && !db.isInTransaction()) owner = null;
    }
    if (owner === null) handOn();
  };

  const server: Server = createServer((socket) => {
    const c = new Connection(socket);
    connections.add(c);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      c.buffer = c.buffer.length === 0 ? chunk : Buffer.concat([c.buffer, chunk]);
      serve(c);
    });
    socket.on('error', () => {}); // a life killed mid-write: its close follows
    socket.on('close', () => {
      c.closed = true;
      c.buffer = Buffer.alloc(0);
      connections.delete(c);
      if (owner === c) serve(c);
      else {
        const at = waiting.indexOf(c);
        if (at >= 0) waiting.splice(at, 1);
      }
    });
  });
  // The server must not keep a finished killpoint process alive (the backend is stopped when its
  // last session closes; see backend.ts).
  server.unref();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address !== 'object') throw new Error('PGlite socket: no address');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of connections) c.socket.destroy();
        server.close(() => resolve());
      }),
  };
}
