// Bad input to `check --engine restate`: exit 2 naming the cause, nothing left behind (no server,
// no child, no temp folder). A missing server binary (KILLPOINT_RESTATE_SERVER naming none), a
// server port in use (KILLPOINT_RESTATE_PORT on a port this test holds), a server that never
// answers its health checks within its limit (a stand-in that only sleeps). The ai-middleware
// systems' packages missing: each one named, with the command that installs them.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killpointCommand, type CommandRan } from './helpers.js';
import { requireAiMiddleware } from '../src/harness/engines/restate/packages.js';
import { ProtocolError } from '../src/harness/process/protocol.js';

const T01 = 'scenarios/lantern/T01-dana-torn-pad.json';
const scratch = mkdtempSync(join(tmpdir(), 'restate-bad-input-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `killpoint check T01 --engine restate --strategy service` with these variables; what it printed and left. */
function check(env: Record<string, string>): Promise<CommandRan> {
  return killpointCommand(['check', T01, '--engine', 'restate', '--strategy', 'service'], env);
}

function listen(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

describe('restate: bad input', () => {
  it('no server binary, a port in use, a server that does not answer: exit 2 naming the cause, nothing left', async () => {
    const { server, port } = await listen();
    const mute = join(scratch, 'mute-server');
    writeFileSync(mute, '#!/bin/sh\nexec sleep 60\n');
    chmodSync(mute, 0o755);
    try {
      const [missing, busy, silent] = await Promise.all([
        check({ KILLPOINT_RESTATE_SERVER: join(scratch, 'no-such-restate-server') }),
        check({ KILLPOINT_RESTATE_PORT: String(port) }),
        check({ KILLPOINT_RESTATE_SERVER: mute, KILLPOINT_RESTATE_START_TIMEOUT_S: '1' }),
      ]);
      expect(missing.stderr).toMatch(/KILLPOINT_RESTATE_SERVER=.*no-such-restate-server: no such file.*@restatedev\/restate-server/);
      expect(busy.stderr).toMatch(new RegExp(`port ${port} is in use \\(KILLPOINT_RESTATE_PORT=${port}`));
      expect(silent.stderr).toMatch(/the server on ports \d+, \d+ and \d+ did not answer its health checks within 1 s .*it was stopped/);
      for (const r of [missing, busy, silent]) {
        expect(r.status).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.left).toEqual([]);
      }
    } finally {
      server.close();
    }
  }, 60_000);

  it("the ai-middleware systems' packages: each one missing is named with the command that installs it; none missing, nothing said", () => {
    const refusal = (installed: (pkg: string) => boolean): unknown => {
      try {
        requireAiMiddleware(installed);
        return null;
      } catch (error) {
        return error;
      }
    };
    const one = refusal((pkg) => pkg !== 'superjson');
    expect(one).toBeInstanceOf(ProtocolError);
    expect((one as Error).message).toBe('restate: the ai-middleware systems need superjson: install it (npm install --save-dev superjson)');
    const two = refusal((pkg) => pkg === 'ai');
    expect((two as Error).message).toBe('restate: the ai-middleware systems need @restatedev/vercel-ai-middleware, superjson: install them (npm install --save-dev @restatedev/vercel-ai-middleware superjson)');
    // Here all three are installed (devDependencies), as the other tests' lives need them.
    expect(refusal((pkg) => pkg.length > 0)).toBeNull();
    expect(() => requireAiMiddleware()).not.toThrow();
  });
});
