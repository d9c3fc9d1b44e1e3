// An agent behind the kill protocol with its traffic played by killpoint (--cassette): a Python
// agent through local endpoints (--proxy SHOP=URL, KILLPOINT_PROXY_SHOP), a Node agent intercepted
// inside (NODE_OPTIONS). Each records once against a stand-in shop started here, which is then
// stopped: every check after runs offline. Unkeyed, the refund is done twice at the service's
// commit (the gap); keyed, every kill point passes. Its sample (npm test): the Python agent recorded,
// then two kill points replayed offline, and the bad input; the whole explorations of both agents
// run in `npm run engines`.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullSuiteDescribe } from './suite.js';
import { harnessCommand } from '../src/harness/cli/commands/harness.js';
import { checkAgent } from '../src/harness/api/check-agent.js';
import { upstreamUrl } from '../src/harness/traffic/traffic-proxy.js';
import { SystemInputError } from '../src/harness/engine.js';
import { PROJECT_ROOT } from '../src/model/load.js';

const FIXTURES = join(PROJECT_ROOT, 'test', 'fixtures', 'agent-traffic');
const PYTHON_AGENT = join(FIXTURES, 'refund_over_http.py');
const NODE_AGENT = join(FIXTURES, 'refund-over-fetch.mjs');

/** A stand-in shop (and model): an order to read, refunds to make, a reply; it counts what it was asked. */
function startShop(): Promise<{ url: string; asked: string[]; stop: () => Promise<void> }> {
  const asked: string[] = [];
  let refunds = 0;
  const server: Server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET' && req.url === '/v1/orders/o-1') return void res.end(JSON.stringify({ id: 'o-1', total: 30 }));
      if (req.method === 'POST' && req.url === '/v1/chat/completions') return void res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'Refund it.' } }] }));
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
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'killpoint-agent-traffic-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The shop, and the model at the same stand-in: its OpenAI-compatible path makes its calls model calls. */
const proxies = (url: string): string[] => ['--proxy', `SHOP=${url}`, '--proxy', `MODEL=${url}/v1`];

/** Records `cassette` for each of `commands` against a stand-in shop, which is stopped after: what comes next runs offline. */
async function recordOffline(cassettes: [string, string[]][], proxy: boolean): Promise<{ url: string; asked: string[] }> {
  const shop = await startShop();
  try {
    for (const [cassette, command] of cassettes) {
      const words = command.map((w) => w.replace('SHOP_URL', shop.url));
      const run = await harness(['--cassette', cassette, ...(proxy ? proxies(shop.url) : []), '--schedule', '1', '--', ...words]);
      expect(run.code).toBe(0);
    }
  } finally {
    await shop.stop();
  }
  return shop;
}

describe('a Python agent, its shop played through KILLPOINT_PROXY_SHOP', () => {
  const cassette = (): string => join(dir, 'python.json');
  let shop: { url: string; asked: string[] };
  beforeAll(async () => {
    shop = await recordOffline([[cassette(), ['python3', PYTHON_AGENT]]], true);
  });

  it('is recorded once against the stand-ins: a model call, a read and a refund', () => {
    // Asked by the recording run alone; the rest is replayed with the stand-in stopped.
    expect(shop.asked).toEqual(['POST /v1/chat/completions', 'GET /v1/orders/o-1', 'POST /v1/refunds']);
    expect(JSON.parse(readFileSync(cassette(), 'utf8')).exchanges.map((e: { role: string }) => e.role)).toEqual(['model', 'read', 'write']);
  });

  it('killed at the commit (the gap), the unkeyed refund is done twice; killed at its request, nothing was committed and it is done once', async () => {
    const proxy = proxies(shop.url);
    const atCommit = await harness(['--cassette', cassette(), ...proxy, '--schedule', 'service-commit[POST 127.0.0.1:' + new URL(shop.url).port + '/v1/refunds]', '--json', '--', 'python3', PYTHON_AGENT]);
    expect(JSON.parse(atCommit.text)).toMatchObject({ schedule: { kills: [4] }, broken: ['done-twice'] });
    expect(atCommit.code).toBe(1);
    const atRequest = await harness(['--cassette', cassette(), ...proxy, '--schedule', '3', '--json', '--', 'python3', PYTHON_AGENT]);
    expect(JSON.parse(atRequest.text)).toMatchObject({ schedule: { kills: [3] }, broken: [] });
    expect(atRequest.code).toBe(0);
  });
});

describe('what ends a life on its traffic', () => {
  it('a request the recording does not hold ends the life there, named; an upstream down while recording is bad input, and the cassette is not written', async () => {
    const shop = await startShop();
    const full = join(dir, 'full.json');
    try {
      expect((await harness(['--cassette', full, '--proxy', `SHOP=${shop.url}`, '--schedule', '1', '--', 'python3', PYTHON_AGENT])).code).toBe(0);
    } finally {
      await shop.stop();
    }
    // The same agent against a cassette that lacks the refund: its run never killed leaves the recording at the refund.
    const cut = JSON.parse(readFileSync(full, 'utf8')) as { exchanges: { role: string }[] };
    cut.exchanges = cut.exchanges.filter((e) => e.role !== 'write');
    const lacking = join(dir, 'lacking.json');
    writeFileSync(lacking, JSON.stringify(cut));
    await expect(harness(['--cassette', lacking, '--proxy', `SHOP=${shop.url}`, '--', 'python3', PYTHON_AGENT])).rejects.toThrow(/a request the run never killed never made: POST 127\.0\.0\.1:\d+\/v1\/refunds \{"amount":30,"order":"o-1"\}/);
    const never = join(dir, 'never.json');
    await expect(harness(['--cassette', never, '--proxy', `SHOP=${shop.url}`, '--', 'python3', PYTHON_AGENT])).rejects.toThrow(new RegExp(`--cassette ${never.replace(/[.]/g, '\\.')}: recording: ${shop.url.replace(/[.]/g, '\\.')}/v1/orders/o-1 did not answer \\(ECONNREFUSED\\)`));
    expect(existsSync(never)).toBe(false);
  });
});

describe('a local endpoint stands for its base URL', () => {
  it('the request\'s path after the base URL\'s path, its query kept', () => {
    expect(upstreamUrl('https://api.openai.com/v1', '/chat/completions')).toBe('https://api.openai.com/v1/chat/completions');
    expect(upstreamUrl('https://api.shop.example/v1/', '/refunds?expand=charge')).toBe('https://api.shop.example/v1/refunds?expand=charge');
    expect(upstreamUrl('https://api.shop.example/', '/v1/orders/o-1')).toBe('https://api.shop.example/v1/orders/o-1');
  });
});

describe('bad input, in one line (exit 2)', () => {
  const bad = (args: string[]): Promise<unknown> => harness([...args, '--', 'python3', PYTHON_AGENT]);
  it('a --proxy that is not NAME=URL, an upstream that is not an http(s) URL, a name given twice, --proxy without --cassette', async () => {
    const file = join(dir, 'bad.json');
    await expect(bad(['--cassette', file, '--proxy', 'SHOP=ftp://shop.example'])).rejects.toThrow(new SystemInputError('--proxy SHOP=ftp://shop.example: "ftp://shop.example" is not an http(s) URL (expected NAME=URL, e.g. SHOP=https://api.shop.example/v1)'));
    await expect(bad(['--cassette', file, '--proxy', 'https://shop.example'])).rejects.toThrow(/--proxy https:\/\/shop\.example: "https:\/\/shop\.example" is not a name for a variable/);
    await expect(bad(['--cassette', file, '--proxy', 'my-shop=https://shop.example'])).rejects.toThrow(/"my-shop" is not a name for a variable/);
    await expect(bad(['--cassette', file, '--proxy', 'SHOP=https://a.example,shop=https://b.example'])).rejects.toThrow(/SHOP is named twice/);
    await expect(bad(['--proxy', 'SHOP=https://shop.example'])).rejects.toThrow('--proxy: only with --cassette <file>');
    await expect(bad(['--cassette', join(dir, 'no-such-folder', 'c.json')])).rejects.toThrow(/the folder .* does not exist/);
    await expect(bad(['--cassette', file, '--proxy', 'SHOP=https://shop.example', '--save', dir])).rejects.toThrow('--save: not with --cassette');
    expect(existsSync(file)).toBe(false);
  });
});

describe('an agent that numbers its events by a count of its own', () => {
  it('is told, with the line, how to number them beside killpoint\'s', async () => {
    const shop = await startShop();
    try {
      const counter = join(dir, 'own-count.py');
      writeFileSync(counter, readFileSync(PYTHON_AGENT, 'utf8').replace('index = sum(1 for _ in f)', 'index = COUNT[0]; COUNT[0] += 1').replace('def emit(', 'COUNT = [0]\n\n\ndef emit('));
      await expect(harness(['--cassette', join(dir, 'own-count.json'), '--proxy', `SHOP=${shop.url}`, '--', 'python3', counter])).rejects.toThrow(/line 5 of its events \(KILLPOINT_EVENTS\): expected \{"index": 4, .*number each of yours by the lines already in the file/);
    } finally {
      await shop.stop();
    }
  });
});

fullSuiteDescribe('whole explorations, offline after one recording', () => {
  it('the Python agent: unkeyed, the commit alone fails (done twice); keyed, every kill point passes', async () => {
    const [unkeyed, keyed] = [join(dir, 'python-whole.json'), join(dir, 'python-keys.json')];
    const shop = await recordOffline([[unkeyed, ['python3', PYTHON_AGENT]], [keyed, ['python3', PYTHON_AGENT, '--keys']]], true);
    const proxy = proxies(shop.url);
    const found = await harness(['--cassette', unkeyed, ...proxy, '--', 'python3', PYTHON_AGENT]);
    expect(found.code).toBe(1);
    // The gap alone: killed at the request, nothing is committed, and the recovery refunds once.
    expect(found.text).toMatch(/failures: done twice 1$/m);
    expect(found.text).toMatch(/4 +service committed POST 127\.0\.0\.1:\d+\/v1\/refunds +<-- KILL/);
    expect(found.text).toMatch(new RegExp(`replay: npx killpoint harness --schedule 4 --cassette ${unkeyed.replace(/[.]/g, '\\.')} --proxy SHOP=http://127\\.0\\.0\\.1:\\d+/ --proxy MODEL=http://127\\.0\\.0\\.1:\\d+/v1 -- python3 `));
    const clean = await harness(['--cassette', keyed, ...proxy, '--', 'python3', PYTHON_AGENT, '--keys']);
    expect(clean.text).toMatch(/failures: none$/m);
    expect(clean.code).toBe(0);
  });

  it('the Node agent, intercepted inside: unkeyed, the commit and the answer read fail (done twice); keyed, every kill point passes', async () => {
    const [unkeyed, keyed] = [join(dir, 'node.json'), join(dir, 'node-keys.json')];
    const shop = await recordOffline([[unkeyed, ['node', NODE_AGENT, 'SHOP_URL']], [keyed, ['node', NODE_AGENT, 'SHOP_URL', '--keys']]], false);
    expect(shop.asked).toEqual(['GET /v1/orders/o-1', 'POST /v1/refunds', 'GET /v1/orders/o-1', 'POST /v1/refunds']);
    const found = await harness(['--cassette', unkeyed, '--', 'node', NODE_AGENT, shop.url]);
    expect(found.code).toBe(1);
    // In the process the answer's end is seen as the agent reads it: a kill point of its own, before the agent's journal.
    expect(found.text).toMatch(/failures: done twice 2$/m);
    expect(found.text).toMatch(/4 +service committed POST 127\.0\.0\.1:\d+\/v1\/refunds +<-- KILL/);
    const clean = await harness(['--cassette', keyed, '--', 'node', NODE_AGENT, shop.url, '--keys']);
    expect(clean.text).toMatch(/failures: none$/m);
    expect(clean.code).toBe(0);
  });

  it('checkAgent (the library) takes the same options: records once, then finds the gap offline, with the replay command carrying them', async () => {
    const [cassette, keyed] = [join(dir, 'api.json'), join(dir, 'api-keys.json')];
    const shop = await recordOffline([[cassette, ['python3', PYTHON_AGENT]], [keyed, ['python3', PYTHON_AGENT, '--keys']]], true);
    const options = { agent: ['python3', PYTHON_AGENT], cassette, proxy: [`SHOP=${shop.url}`, `MODEL=${shop.url}/v1`] };
    expect((await checkAgent({ ...options, agent: [...options.agent, '--keys'], cassette: keyed })).ok).toBe(true);
    const found = await checkAgent(options);
    expect(found.ok).toBe(false);
    expect(found.minimal).toMatchObject({ kills: [4], failed: ['done-twice'] });
    expect(found.minimal!.replay).toContain(`--cassette ${cassette} --proxy SHOP=${shop.url}/ --proxy MODEL=${shop.url}/v1 -- python3 `);
  });
});
