// PGlite as DBOS's system database, served from killpoint's process to many connections at once:
// a connection that goes away in the middle of its query (a life killed with SIGKILL) leaves the
// one session of PGlite as a real server's next session would find it (idle, nothing of the dead
// one's committed), another connection's query never runs between the messages of one query, the
// backend stops by itself once no session holds it (so a command exits after its output), and a
// tier whose backend never started says nothing about rows it never wrote.

import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { backendRunning, holdBackend, stopBackends, systemDatabase } from '../src/harness/engines/dbos/backend.js';
import { dbosConfigNamed } from '../src/harness/engines/dbos/config.js';
import { dbosTier } from '../src/harness/engines/dbos/tier.js';
import { loadScenarioFile } from '../src/model/load.js';

afterAll(() => stopBackends());

interface Client {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
  on(event: 'error', listener: () => void): void;
  connection: { stream: { write(chunk: Buffer, ...rest: unknown[]): boolean; destroy(): void } };
}
const pg = createRequire(createRequire(import.meta.url).resolve('@dbos-inc/dbos-sdk'))('pg') as { Client: new (options: { connectionString: string }) => Client };

async function client(url: string): Promise<Client> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {});
  await c.connect();
  return c;
}

/** Holds the client's writes from the first message of type `from` on; `release` sends them, `kill` drops the connection unsent. */
function holdWrites(c: Client, from: string) {
  const stream = c.connection.stream;
  const write = stream.write.bind(stream);
  const held: Buffer[] = [];
  stream.write = (chunk: Buffer, ...rest: unknown[]) => {
    if (held.length > 0 || chunk[0] === from.charCodeAt(0)) {
      held.push(chunk);
      return true;
    }
    return write(chunk, ...rest);
  };
  return {
    release: () => {
      stream.write = write;
      for (const chunk of held) write(chunk);
    },
    kill: () => stream.destroy(),
  };
}

// real clock: the server's side of a connection learns of a write or a close only through its own event loop.
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe('PGlite served to many connections', () => {
  it("a query killed before its Sync: after an error, the next connection's count still has its row; after a write, the write is not committed", async () => {
    const url = await systemDatabase('pglite');
    const setup = await client(url);
    await setup.query('CREATE TABLE IF NOT EXISTS socket_test (id int PRIMARY KEY)');
    await setup.query('DELETE FROM socket_test');
    await setup.end();
    for (const sql of ['INSERT INTO socket_test VALUES ($1), ($1)', 'INSERT INTO socket_test VALUES ($1)']) {
      const dying = await client(url);
      const hold = holdWrites(dying, 'S');
      void dying.query(sql, [1]).catch(() => {});
      await settle();
      hold.kill();
      await settle();
      const next = await client(url);
      const { rows } = await next.query('SELECT count(*)::int AS n FROM socket_test WHERE id > $1', [0]);
      expect(rows, sql).toEqual([{ n: 0 }]);
      await next.end();
    }
  }, 120_000);

  it("another connection's query never runs between the messages of one query", async () => {
    const url = await systemDatabase('pglite');
    const [a, b] = await Promise.all([client(url), client(url)]);
    const hold = holdWrites(a, 'D'); // Parse and Bind sent, Describe, Execute and Sync held
    const first = a.query('SELECT $1::int AS a', [1]);
    await settle();
    const second = b.query("SELECT $1::text AS b, 'x' AS c", ['two']);
    await settle();
    hold.release();
    expect((await first).rows).toEqual([{ a: 1 }]);
    expect((await second).rows).toEqual([{ b: 'two', c: 'x' }]);
    await Promise.all([a.end(), b.end()]);
  }, 120_000);

  it('stops by itself once no session holds it, and starts again when asked', async () => {
    const release = holdBackend('pglite');
    await systemDatabase('pglite');
    expect(backendRunning('pglite')).toBe(true);
    release();
    await vi.waitFor(() => expect(backendRunning('pglite')).toBe(false), { timeout: 10_000, interval: 50 });
    const again = holdBackend('pglite');
    const c = await client(await systemDatabase('pglite'));
    expect((await c.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await c.end();
    again();
  }, 120_000);
});

describe('the DBOS tier releasing a session', () => {
  it('whose backend never started says nothing about rows (it wrote none)', async () => {
    const scenario = loadScenarioFile('test/fixtures/one-refund.json');
    const tier = dbosTier(dbosConfigNamed('postgres/workflow')!, 'postgres/workflow');
    const dir = mkdtempSync(join(tmpdir(), 'killpoint-release-'));
    const before = process.env.KILLPOINT_POSTGRES_URL;
    process.env.KILLPOINT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:1/nowhere';
    const written = vi.spyOn(process.stderr, 'write');
    try {
      tier.prepare(scenario, join(dir, 's0'));
      mkdirSync(join(dir, 's1'));
      await expect(tier.outside!.copy(join(dir, 's0'), join(dir, 's1'))).rejects.toThrow(/nothing listens there/);
      await tier.outside!.release(join(dir, 's0'));
      expect(written.mock.calls.map((c) => String(c[0])).join('')).not.toMatch(/rows were left/);
    } finally {
      written.mockRestore();
      if (before === undefined) delete process.env.KILLPOINT_POSTGRES_URL;
      else process.env.KILLPOINT_POSTGRES_URL = before;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
