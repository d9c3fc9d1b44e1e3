// A Restate run leaves nothing behind once its session is over: the server's data, and whatever
// it would put in the system's temp folder, live in a folder of its own, removed with it. Its
// server starts on ports it can use: none that fetch refuses, and others when one is taken.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { restateSystem } from '../src/harness/engines/restate/engine.js';
import { PortRange, type ServerPorts } from '../src/harness/engines/restate/ports.js';
import { startRestateServer } from '../src/harness/engines/restate/server.js';
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

it('starts again on other ports when one it was given is taken before it binds it (by another process, in a sweep beside a test)', async () => {
  // The first set's ingress is taken once found free, as another killpoint's server would take it.
  const range = new PortRange(10_000 + (process.pid % 5_000), 3_000, 'the server');
  const taker = createServer();
  const given: ServerPorts[] = [];
  const portsFor = async (): Promise<ServerPorts> => {
    const ports = { ingress: await range.take(), admin: await range.take(), node: await range.take() };
    if (given.length === 0) await new Promise<void>((resolve) => taker.listen(ports.ingress, '127.0.0.1', resolve));
    given.push(ports);
    return ports;
  };
  try {
    const server = await startRestateServer(portsFor);
    await server.stop();
  } finally {
    taker.close();
  }
  expect(given).toHaveLength(2);
}, 60_000);
