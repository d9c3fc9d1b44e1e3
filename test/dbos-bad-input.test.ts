// DBOS on bad input: a Postgres URL nobody answers at, and a workflow that never ends (the broken
// variant whose recovery launches with an executor id of its own, so DBOS never picks the
// workflow up). Each is a clear error naming what failed, exit 2, and nothing left running.

import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { postgresBinDir } from '../src/engines/dbos/backends/postgres-cluster.js';

const DANA = 'scenarios/lantern/T01-dana-torn-pad.json';
const ours = () => readdirSync(tmpdir()).filter((n) => /^killpoint-(dbos|pglite|postgres)/.test(n)).sort();

function check(strategy: string, env: Record<string, string>, extra: string[] = []) {
  return spawnSync(process.execPath, ['bin/killpoint.mjs', 'check', DANA, '--engine', 'dbos', '--strategy', strategy, ...extra], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
}

describe('DBOS on bad input', () => {
  it('an unreachable Postgres URL: exit 2, naming the URL and the refused connection', () => {
    const before = ours();
    const r = check('postgres/workflow', { KILLPOINT_POSTGRES_URL: 'postgres://postgres:secret@127.0.0.1:1/nowhere' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("dbos postgres: preparing DBOS's system database at postgres://postgres:***@127.0.0.1:1/nowhere failed");
    expect(r.stderr).toContain('ECONNREFUSED');
    expect(r.stderr).not.toContain('secret');
    expect(ours()).toEqual(before);
  }, 120_000);

  it('a URL that is not a postgres URL: exit 2', () => {
    const r = check('postgres/workflow', { KILLPOINT_POSTGRES_URL: 'mysql://localhost/x' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('KILLPOINT_POSTGRES_URL: expected a postgres:// URL');
  }, 60_000);

  it.skipIf(postgresBinDir() === null)('a workflow that never ends (a recovery with another executor id waits forever): the life is stopped at its time limit, exit 2, no cluster left', () => {
    const before = ours();
    const r = check('postgres/workflow/new-executor', { KILLPOINT_DBOS_LIFE_TIMEOUT_S: '4' }, ['--schedule', '20']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/a life did not end within 4 s; it was killed/);
    expect(ours()).toEqual(before);
    expect(spawnSync('pgrep', ['-f', 'killpoint-postgres-'], { encoding: 'utf8' }).stdout.trim()).toBe('');
  }, 120_000);
});
