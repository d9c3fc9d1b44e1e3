// An agent behind the kill protocol with its traffic played by killpoint (--cassette): a Python
// agent through local endpoints (--proxy SHOP=URL, KILLPOINT_PROXY_SHOP), a Node agent intercepted
// inside (NODE_OPTIONS). Each records once against a stand-in shop started here, which is then
// stopped: every check after runs offline. Unkeyed, the refund is done twice at the service's
// commit (the gap); keyed, every kill point passes.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessCommand } from '../src/harness/cli/commands/harness.js';
import { SystemInputError } from '../src/harness/engine.js';
import { PROJECT_ROOT } from '../src/model/load.js';

const FIXTURES = join(PROJECT_ROOT, 'test', 'fixtures', 'agent-traffic');
const PYTHON_AGENT = join(FIXTURES, 'refund_over_http.py');
const NODE_AGENT = join(FIXTURES, 'refund-over-fetch.mjs');

/** A stand-in shop: an order to read, refunds to make; it counts what it was asked. */
function startShop(): Promise<{ url: string; asked: string[]; stop: () => Promise<void> }> {
  const asked: string[] = [];
  let refunds = 0;
  const server: Server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET' && req.url === '/v1/orders/o-1') return void res.end(JSON.stringify({ id: 'o-1', total: 30 }));
      if (req.method === 'POST' && req.url === '/v1/refunds') return void res.end(JSON.stringify({ id: `re_${++refunds}`, status: 'succeeded' }));
      res.statusCode = 404;
      res.end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    resolve({ url, asked, stop: () => new Promise<void>((done) => { server.closeAllConnections(); server.close(() => done()); }) });
  }));
}

/** Runs `killpoint harness` as the command line would, its report kept. */
async function harness(args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const log = console.log;
  console.log = (text: string) => lines.push(text);
  try {
    return { code: await harnessCommand(args), text: lines.join('\n') };
  } finally {
    console.log = log;
  }
}

let dir: string;
let shop: Awaited<ReturnType<typeof startShop>>;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'killpoint-agent-traffic-'));
  shop = await startShop();
});
afterAll(async () => {
  await shop.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a Python agent, its shop played through KILLPOINT_PROXY_SHOP', () => {
  it('records once against the shop, then, offline, finds the unkeyed refund done twice at the commit, and passes keyed', async () => {
    const cassette = join(dir, 'python.json');
    const keyedCassette = join(dir, 'python-keys.json');
    const proxy = `SHOP=${shop.url}`;
    await harness(['--cassette', keyedCassette, '--proxy', proxy, '--schedule', '1', '--', 'python3', PYTHON_AGENT, '--keys']);
    const unkeyed = await harness(['--cassette', cassette, '--proxy', proxy, '--schedule', '1', '--', 'python3', PYTHON_AGENT]);
    expect(unkeyed.code).toBe(0);
    // The shop was asked by the two recording runs alone: a read and a refund each.
    expect(shop.asked).toEqual(['GET /v1/orders/o-1', 'POST /v1/refunds', 'GET /v1/orders/o-1', 'POST /v1/refunds']);
    expect(JSON.parse(readFileSync(cassette, 'utf8')).exchanges.map((e: { role: string }) => e.role)).toEqual(['read', 'write']);
    await shop.stop();

    const found = await harness(['--cassette', cassette, '--proxy', proxy, '--', 'python3', PYTHON_AGENT]);
    expect(found.code).toBe(1);
    expect(found.text).toMatch(/service committed POST 127\.0\.0\.1:\d+\/v1\/refunds +<-- KILL/);
    // The gap alone: killed at the request, nothing is committed, and the recovery refunds once.
    expect(found.text).toMatch(/failures: done twice 1$/m);
    expect(found.text).toMatch(new RegExp(`replay: npx killpoint harness --schedule 3 --cassette ${cassette.replace(/[.]/g, '\\.')} --proxy SHOP=http://127\\.0\\.0\\.1:\\d+/ -- python3 `));
    const keyed = await harness(['--cassette', keyedCassette, '--proxy', proxy, '--', 'python3', PYTHON_AGENT, '--keys']);
    expect(keyed.text).toMatch(/failures: none$/m);
    expect(keyed.code).toBe(0);
    expect(shop.asked).toHaveLength(4);
  });
});
