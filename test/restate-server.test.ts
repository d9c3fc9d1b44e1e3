// A Restate run leaves nothing behind once its session is over: the server's data, and whatever
// it would put in the system's temp folder, live in a folder of its own, removed with it.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { restateSystem } from '../src/harness/engines/restate/engine.js';
import { PortRange } from '../src/harness/engines/restate/ports.js';
import { runSchedule } from '../src/harness/session.js';
import { lanternScenario } from '../src/model/load.js';

it("leaves nothing in the system's temp folder once its session is over (its server's invoker folder included)", async () => {
  const temp = mkdtempSync(join(tmpdir(), 'killpoint-restate-server-test-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = temp;
  try {
    const run = await runSchedule(restateSystem('service', { tier: 'in-process' })!, lanternScenario('T01'), { kills: [], interleaving: [] });
    expect(run.lives[0]!.end).toBe('finished');
    expect(readdirSync(temp)).toEqual([]);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(temp, { recursive: true, force: true });
  }
}, 60_000);

it('never gives the server a port fetch refuses to connect to (10080: its health checks would never be answered)', async () => {
  const range = new PortRange(10_079, 3, 'the server');
  expect([await range.take(), await range.take(), await range.take()]).not.toContain(10_080);
});
