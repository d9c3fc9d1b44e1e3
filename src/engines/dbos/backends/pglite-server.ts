// PGlite, DBOS's system database with nothing to install, served over a socket from the killpoint
// process: every life is a child that connects to it on 127.0.0.1, so the database outlives each
// child's SIGKILL as a real database server would. PGlite is loaded only here, when a pglite
// system first runs (users of the other engines need not have it installed). Starting it takes
// seconds: one instance serves a whole sweep.

export interface ServedPglite {
  url: string;
  stop(): Promise<void>;
}

export async function servePglite(): Promise<ServedPglite> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 64 });
  await server.start();
  // The server must not keep a finished killpoint process alive: its listening socket is unref'd
  // (each child's connection ends with the child).
  (server as unknown as { server?: { unref(): void } }).server?.unref();
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
