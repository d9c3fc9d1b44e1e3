// A bad KILLPOINT_POSTGRES_URL is bad input, said as such: the variable named, what is wrong with
// it, the password hidden, and nothing said of rows left in a database that was never written to.

import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';

const DANA = 'scenarios/lantern/T01-dana-torn-pad.json';

function checkWithUrl(url: string): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['bin/killpoint.mjs', 'check', DANA, '--engine', 'dbos', '--strategy', 'postgres/workflow'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, KILLPOINT_POSTGRES_URL: url },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (t: string) => void (stderr += t));
  return new Promise((resolveEnd) => child.on('close', (status) => resolveEnd({ status, stderr })));
}

describe('a bad KILLPOINT_POSTGRES_URL', () => {
  it('nobody answering, not postgres://, not a URL: exit 2, the variable and what is wrong named, the password hidden, no rows said to be left', async () => {
    const [refused, mysql, notUrl] = await Promise.all([
      checkWithUrl('postgres://dana:hunter2@127.0.0.1:1/shop'),
      checkWithUrl('mysql://dana:hunter2@127.0.0.1/shop'),
      checkWithUrl('not a url'),
    ]);
    for (const r of [refused, mysql, notUrl]) {
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('KILLPOINT_POSTGRES_URL');
      expect(r.stderr).not.toContain('hunter2');
      expect(r.stderr).not.toMatch(/rows were left/);
    }
    expect(refused.stderr).toContain("killpoint check: dbos postgres: preparing DBOS's system database at postgres://dana:***@127.0.0.1:1/shop failed: connection refused at 127.0.0.1:1 (ECONNREFUSED): nothing listens there; KILLPOINT_POSTGRES_URL must name a running Postgres server");
    expect(mysql.stderr).toContain('killpoint check: KILLPOINT_POSTGRES_URL: expected a postgres:// URL (postgres://user:password@host:port/database), got "mysql://dana:***@127.0.0.1/shop", a mysql: URL');
    expect(notUrl.stderr).toContain('killpoint check: KILLPOINT_POSTGRES_URL: expected a postgres:// URL (postgres://user:password@host:port/database), got "not a url", which is not a URL');
  }, 60_000);
});
