// `pg`, the client DBOS is built on, as killpoint uses it beside DBOS: the parent's own queries
// (backend.ts) and an in-process life's pool (held-dbos.ts). Apart from the backends, so that a
// life's bundle takes this and nothing that starts a server.

import { createRequire } from 'node:module';

export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

export interface Pool extends Queryable {
  connect(): Promise<Queryable & { release(): void }>;
  on(event: 'error', listener: () => void): void;
  end(): Promise<void>;
}

export interface PgModule {
  Pool: new (options: { connectionString: string; max: number; allowExitOnIdle: boolean }) => Pool;
}

/**
 * `pg`, the client DBOS is built on, found where DBOS finds it (installed beside DBOS or inside
 * it): killpoint does not depend on it, and its types are not installed, so it is described here.
 */
export function pgOfDbos(): PgModule {
  const dbos = createRequire(import.meta.url).resolve('@dbos-inc/dbos-sdk');
  return createRequire(dbos)('pg') as PgModule;
}

