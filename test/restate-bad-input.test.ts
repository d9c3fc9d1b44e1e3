// Bad input to `check --engine restate`: exit 2 naming the cause, nothing left behind (no server,
// no child, no temp folder). A missing server binary (KILLPOINT_RESTATE_SERVER naming none), a
// server port in use (KILLPOINT_RESTATE_PORT on a port this test holds), a server that never
// answers its health checks within its limit (a stand-in that only sleeps). The ai-middleware
// systems' packages missing: each one named, with the command that installs them.

import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireAiMiddleware } from '../src/harness/engines/restate/packages.js';
import { ProtocolError } from '../src/harness/process/protocol.js';
import { tempRoot } from '../src/harness/process/owned-temp-dirs.js';
import { hasEnvironmentEntry, pidsNow } from '../src/harness/process/process-tree.js';
import { PROJECT_ROOT } from '../src/model/load.js';

const T01 = 'scenarios/lantern/T01-dana-torn-pad.json';
const scratch = mkdtempSync(join(tmpdir(), 'restate-bad-input-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
  left: string[];
}

/** `killpoint check T01 --engine restate --strategy service` with these variables; what it printed and left. */
function check(env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/killpoint.mjs', 'check', T01, '--engine', 'restate', '--strategy', 'service'], { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      const pid = child.pid!;
      const processes = pidsNow().filter((p) => hasEnvironmentEntry(p, `KILLPOINT_PROCESS_TREE=${pid}.`, 'prefix'));
      const folders = readdirSync(tempRoot()).filter((name) => name.startsWith('killpoint-') && name.includes(`pid${pid}.`));
      resolve({ status, stdout, stderr, left: [...processes.map((p) => `process ${p}`), ...folders] });
    });
  });
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
      expect(silent.stderr).toMatch(/the server did not answer its health checks within 1 s .*it was stopped/);
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
