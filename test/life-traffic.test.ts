// The network boundary in one life, against a real local server standing in for a shop and a model:
// the run never killed records (the server is asked), every other life replays with the server
// stopped (nothing leaves the machine), writes go through the run's ledger, and each moment is an
// event. Requests through fetch and through node:http are both seen.

import { request as httpRequest, createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CassetteEntry } from '../src/harness/traffic/cassette-file.js';
import { startLifeTraffic, type LifeTrafficOptions } from '../src/harness/traffic/life-traffic.js';
import { SERVICE_LEDGER_FILE } from '../src/harness/traffic/service-ledger.js';

const work = mkdtempSync(join(tmpdir(), 'killpoint-life-traffic-'));
let server: Server;
let base: string;
const asked: string[] = [];
let refunds = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      asked.push(`${req.method} ${req.url} auth=${req.headers.authorization ?? '-'}`);
      if (req.url === '/v1/chat/completions') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const events = ['data: {"delta":"refund"}\n\n', 'data: {"delta":" A-17"}\n\n', 'data: [DONE]\n\n'];
        const send = (i: number): void => {
          if (i === events.length) return void res.end();
          res.write(events[i]);
          setTimeout(() => send(i + 1), 20);
        };
        return send(0);
      }
      if (req.method === 'POST' && req.url === '/v1/refunds') {
        refunds += 1;
        res.writeHead(201, { 'content-type': 'application/json', 'set-cookie': 'session=secret' });
        return void res.end(JSON.stringify({ id: `re_${refunds}` }));
      }
      if (req.method === 'GET' && req.url === '/v1/orders/A-17') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ refunded: refunds * 4200 }));
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
  rmSync(work, { recursive: true, force: true });
});

/** node:http's way: what a service's SDK (Stripe's) uses. */
function getWithHttp(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { method: 'GET', headers: { 'x-api-key': 'secret' } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve(text));
    })
      .on('error', reject)
      .end();
  });
}

/** An agent's life: ask the model (streamed), read the order, refund (keyed or not), read it again. */
async function agent(key: (() => string) | null): Promise<string[]> {
  const model = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-secret', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-5', stream: true, messages: [{ role: 'user', content: 'refund A-17' }] }) });
  const said = await model.text();
  const before = await getWithHttp(`${base}/v1/orders/A-17`);
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: 'Bearer sk-shop' };
  if (key !== null) headers['idempotency-key'] = key();
  const refund = await (await fetch(`${base}/v1/refunds`, { method: 'POST', headers, body: JSON.stringify({ order: 'A-17', cents: 4200 }) })).text();
  const after = await getWithHttp(`${base}/v1/orders/A-17`);
  return [said, before, refund, after];
}

let folders = 0;
function life(mode: LifeTrafficOptions['mode'], cassette: CassetteEntry[] | undefined, run = join(mkdtempSync(join(work, `run-${folders++}-`)))) {
  const events: string[] = [];
  const traffic = startLifeTraffic({ mode, ...(cassette === undefined ? {} : { cassette }), ledgerFile: join(run, SERVICE_LEDGER_FILE), emit: (e) => events.push(`${e.kind} ${String(e.request)}${e.chunk === undefined ? '' : `#${String(e.chunk)}`}`) });
  return { traffic, events, run };
}

describe('recorded once, replayed with the server stopped', () => {
  let cassette: CassetteEntry[];
  let recordedAnswers: string[];
  let recordedEvents: string[];

  test('the run never killed goes to the server; the recording holds no credential', async () => {
    const { traffic, events } = life('record', undefined);
    try {
      recordedAnswers = await traffic.within(() => agent(() => 'run-1:call_refund'));
    } finally {
      traffic.stop();
    }
    cassette = traffic.recorded();
    recordedEvents = events;
    expect(asked).toEqual([`POST /v1/chat/completions auth=Bearer sk-secret`, 'GET /v1/orders/A-17 auth=-', 'POST /v1/refunds auth=Bearer sk-shop', 'GET /v1/orders/A-17 auth=-']);
    expect(recordedAnswers).toEqual(['data: {"delta":"refund"}\n\ndata: {"delta":" A-17"}\n\ndata: [DONE]\n\n', '{"refunded":0}', '{"id":"re_1"}', '{"refunded":4200}']);
    expect(cassette.map((e) => [e.role, e.request.method, new URL(e.request.url).pathname, e.afterWrites])).toEqual([['model', 'POST', '/v1/chat/completions', 0], ['read', 'GET', '/v1/orders/A-17', 0], ['write', 'POST', '/v1/refunds', 0], ['read', 'GET', '/v1/orders/A-17', 1]]);
    expect(cassette[0]!.response.chunks.length).toBeGreaterThan(1);
    const text = JSON.stringify(cassette);
    expect(text).not.toMatch(/sk-secret|sk-shop|x-api-key|set-cookie|session=secret/);
    expect(text).toMatch(/"idempotency-key":"run-1:call_refund"/);
    expect(traffic.committedWrites().map((w) => `${w.kind} ${w.target}`)).toEqual(['POST 127.0.0.1:' + new URL(base).port + '/v1/refunds']);
  });

  test('every other life is answered from the recording, chunk by chunk, with the same events; the server is not asked', async () => {
    // Stopped: a request that left the machine would fail (nothing listens there any more).
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    const askedBefore = asked.length;
    const { traffic, events } = life('replay', cassette);
    try {
      expect(await traffic.within(() => agent(() => 'run-1:call_refund'))).toEqual(recordedAnswers);
    } finally {
      traffic.stop();
    }
    expect(asked.length).toBe(askedBefore);
    expect(events).toEqual(recordedEvents);
    expect(events.filter((e) => e.startsWith('http-chunk')).length).toBe(cassette[0]!.response.chunks.length);
    expect(events.filter((e) => e.startsWith('service-commit'))).toHaveLength(1);
  });

  test('a kill in the gap: the next life sends the refund again; with a stable key the service answers the repeat, without one it refunds twice', async () => {
    for (const [key, done] of [[() => 'run-1:call_refund', 1], [null, 2], [() => `random-${Math.random()}`, 2]] as const) {
      const first = life('replay', cassette);
      await first.traffic.within(() => agent(key)).finally(() => first.traffic.stop());
      // The recovery runs the whole agent again on the same run's ledger (the refund's answer never reached the first life).
      const second = life('replay', cassette, first.run);
      const answers = await second.traffic.within(() => agent(key)).finally(() => second.traffic.stop());
      expect(second.traffic.committedWrites(), String(key)).toHaveLength(done);
      expect(answers[2]).toBe('{"id":"re_1"}');
    }
  });

  test('a life abandoned in process (killed, never stopped) keeps its own requests: the next life\'s ledger and events never see them, and once it is taken off they are refused, never let through', async () => {
    const abandoned = life('replay', cassette);
    let goOn!: () => void;
    const killed = new Promise<void>((resolve) => (goOn = resolve));
    // Its code runs on after the next life has started on the same thread, as a life killed in process does.
    const late = abandoned.traffic.within(async () => {
      await killed;
      return (await fetch(`${base}/v1/refunds`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ order: 'A-17', cents: 4200 }) })).text();
    });
    const next = life('replay', cassette);
    const answers = next.traffic.within(() => agent(null));
    goOn();
    expect(await late).toBe('{"id":"re_1"}');
    await answers;
    expect(next.traffic.committedWrites()).toHaveLength(1);
    expect(next.events.filter((e) => e.startsWith('service-commit'))).toHaveLength(1);
    expect(abandoned.traffic.committedWrites()).toHaveLength(1);
    abandoned.traffic.stop();
    next.traffic.stop();
    const after = abandoned.traffic.within(() => fetch(`${base}/v1/orders/A-17`));
    await expect(after).rejects.toSatisfy((error: Error & { cause?: Error }) => /asked by a life that has ended/.test(`${error.message} ${error.cause?.message ?? ''}`));
  });

  test('a request the recording does not hold is refused (400, which SDKs do not retry), named, and ends the life', async () => {
    const { traffic } = life('replay', cassette);
    try {
      const refused = await traffic.within(() => fetch(`${base}/v1/refunds`, { method: 'POST', body: JSON.stringify({ order: 'A-18', cents: 100 }) }));
      expect(refused.status).toBe(400);
      await expect(traffic.failure).rejects.toThrow(/a request the run never killed never made/);
      await expect(traffic.failure).rejects.toHaveProperty('name', 'ConversationRejected');
    } finally {
      traffic.stop();
    }
    expect(traffic.diverged()).toBe(`a request the run never killed never made: POST 127.0.0.1:${new URL(base).port}/v1/refunds {"cents":100,"order":"A-18"}`);
  });
});

describe('the engine\'s own traffic', () => {
  test('on killpoint\'s own thread, a request made in no life\'s context is killpoint\'s own: it passes through, even while a life is on', async () => {
    const own = createServer((_, res) => res.end('killpoint\'s own'));
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(own.address() as { port: number }).port}/admin`;
    const events: string[] = [];
    const traffic = startLifeTraffic({ mode: 'replay', cassette: [], ledgerFile: join(work, 'own-ledger.jsonl'), emit: (e) => events.push(e.kind) });
    try {
      expect(await (await fetch(url)).text()).toBe('killpoint\'s own');
    } finally {
      traffic.stop();
      own.closeAllConnections();
      own.close();
    }
    expect(events).toEqual([]);
    expect(traffic.diverged()).toBeNull();
  });

  test('passes through to its server, neither recorded nor answered', async () => {
    const engineServer = createServer((_, res) => res.end('ingress'));
    await new Promise<void>((resolve) => engineServer.listen(0, '127.0.0.1', resolve));
    const ingress = `http://127.0.0.1:${(engineServer.address() as { port: number }).port}`;
    const events: string[] = [];
    const traffic = startLifeTraffic({ mode: 'replay', cassette: [], ledgerFile: join(work, 'engine-ledger.jsonl'), emit: (e) => events.push(e.kind), passThrough: [ingress] });
    try {
      expect(await traffic.within(async () => (await fetch(`${ingress}/invoke/agent`, { method: 'POST', body: '{}' })).text())).toBe('ingress');
    } finally {
      traffic.stop();
      engineServer.closeAllConnections();
      engineServer.close();
    }
    expect(events).toEqual([]);
    expect(traffic.committedWrites()).toEqual([]);
  });
});

// A body that is not UTF-8 (an image uploaded, a file downloaded) is kept in base64 and handed back
// byte for byte: read as text it would come back with U+FFFD in the place of its bytes.
describe('bodies that are not text', () => {
  test('an upload and a download of bytes that are not UTF-8 are recorded in base64 and replayed byte for byte, with the server stopped', async () => {
    const picture = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00, 0x80, 0xc3]);
    const files = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        if (req.method === 'POST') return void res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ received: Buffer.concat(parts).toString('hex') }));
        res.writeHead(200, { 'content-type': 'image/png' }).end(picture);
      });
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(files.address() as { port: number }).port}`;
    const agentOfBytes = async () => {
      const uploaded = await (await fetch(`${at}/v1/uploads`, { method: 'POST', headers: { 'content-type': 'image/png' }, body: picture })).text();
      const downloaded = Buffer.from(await (await fetch(`${at}/v1/files/picture.png`)).arrayBuffer());
      return { uploaded, downloaded: downloaded.toString('hex') };
    };
    const recording = life('record', undefined);
    const recorded = await recording.traffic.within(agentOfBytes).finally(() => recording.traffic.stop());
    files.closeAllConnections();
    await new Promise((resolve) => files.close(resolve));
    expect(recorded).toEqual({ uploaded: JSON.stringify({ received: picture.toString('hex') }), downloaded: picture.toString('hex') });
    const cassette = recording.traffic.recorded();
    expect(cassette.map((e) => [e.request.encoding, e.response.encoding])).toEqual([['base64', undefined], [undefined, 'base64']]);
    const replaying = life('replay', cassette);
    expect(await replaying.traffic.within(agentOfBytes).finally(() => replaying.traffic.stop())).toEqual(recorded);
    expect(replaying.traffic.committedWrites()).toHaveLength(1);
  });
});
