// DBOS on bad input: a Postgres URL nobody answers at, a database that is not DBOS's (another
// application's tables where DBOS keeps its own), and a workflow that never ends (the broken
// variant whose recovery launches with an executor id of its own, so DBOS never picks the
// workflow up). Each is a clear error naming what failed, exit 2, and nothing left running.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { postgresBinDir, startPostgresCluster } from '../src/harness/engines/dbos/backends/postgres-cluster.js';

const DANA = 'scenarios/lantern/T01-dana-torn-pad.json';

/**
 * Runs check in a temp folder of its own (TMPDIR), so that what it leaves behind is told apart from
 * what other killpoint processes on the machine (other test files, a sweep) are using right now.
 */
function check(strategy: string, env: Record<string, string>, extra: string[] = []) {
  const tmp = mkdtempSync(join(tmpdir(), 'killpoint-bad-input-'));
  chmodSync(tmp, 0o755); // the private cluster runs as the postgres user, who must reach its folder in here
  const r = spawnSync(process.execPath, ['bin/killpoint.mjs', 'check', DANA, '--engine', 'dbos', '--strategy', strategy, ...extra], { encoding: 'utf8', env: { ...process.env, TMPDIR: tmp, ...env }, timeout: 120_000 });
  // tsx (which runs killpoint from a clone) keeps its compile cache there: not ours.
  const left = readdirSync(tmp).filter((n) => !n.startsWith('tsx-'));
  const running = spawnSync('pgrep', ['-f', tmp], { encoding: 'utf8' }).stdout.trim();
  if (left.length === 0) rmSync(tmp, { recursive: true, force: true });
  return { ...r, left, running };
}

describe('DBOS on bad input', () => {
  it('an unreachable Postgres URL: exit 2, naming the URL and the refused connection', () => {
    const r = check('postgres/workflow', { KILLPOINT_POSTGRES_URL: 'postgres://postgres:secret@127.0.0.1:1/nowhere' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("dbos postgres: preparing DBOS's system database at postgres://postgres:***@127.0.0.1:1/nowhere failed");
    expect(r.stderr).toContain('ECONNREFUSED');
    expect(r.stderr).not.toContain('secret');
    expect(r.left).toEqual([]);
  }, 120_000);

  it('a URL that is not a postgres URL: exit 2', () => {
    const r = check('postgres/workflow', { KILLPOINT_POSTGRES_URL: 'mysql://localhost/x' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('KILLPOINT_POSTGRES_URL: expected a postgres:// URL');
  }, 60_000);

  it.skipIf(postgresBinDir() === null)("a database that is not DBOS's (a dbos schema of another application's): exit 2, naming the database and what DBOS could not do", async () => {
    const cluster = await startPostgresCluster(postgresBinDir()!);
    try {
      const psql = (database: string, sql: string) => spawnSync(join(postgresBinDir()!, 'psql'), [cluster.url.replace(/\/[^/]*$/, `/${database}`), '-v', 'ON_ERROR_STOP=1', '-c', sql], { encoding: 'utf8' });
      expect(psql('postgres', 'CREATE DATABASE shop').status).toBe(0);
      expect(psql('shop', 'CREATE SCHEMA dbos; CREATE TABLE dbos.workflow_status (id int); CREATE TABLE dbos.dbos_migrations (version int); INSERT INTO dbos.dbos_migrations VALUES (1)').status).toBe(0);
      const url = cluster.url.replace(/\/[^/]*$/, '/shop');
      const r = check('postgres/workflow', { KILLPOINT_POSTGRES_URL: url });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`dbos postgres: preparing DBOS's system database at ${url} failed`);
      expect(r.stderr).toMatch(/Failed to initialize workflow executor: column "workflow_uuid" .* does not exist/);
      expect(r.left).toEqual([]);
    } finally {
      cluster.stop();
    }
  }, 120_000);

  it.skipIf(postgresBinDir() === null)('a workflow that never ends (a recovery with another executor id waits forever): the life is stopped at its time limit, exit 2, no cluster left', () => {
    // The limit leaves the lives that do end (a DBOS life takes seconds of CPU, and a busy machine
    // shares its cores with other test files) room to reach their kill point.
    const r = check('postgres/workflow/new-executor', { KILLPOINT_DBOS_LIFE_TIMEOUT_S: '10' }, ['--schedule', '20']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/a life did not end within 10 s; it was killed/);
    expect(r.left).toEqual([]);
    expect(r.running).toBe('');
  }, 120_000);
});
