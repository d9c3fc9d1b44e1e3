// The network boundary's rules, without a network: what a recording keeps of a request (no
// secrets), how the services killpoint plays answer a write (committed first; keys honoured as
// Stripe honours them), how the cassette is read (refused by name when it is not this run's) and
// how a recorded answer is found (a model call by its conversation, a read by the services' state).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { CASSETTE_FORMAT, CASSETTE_VERSION, CassetteError, readCassette, writeCassette, type Cassette, type CassetteEntry } from '../src/harness/traffic/cassette-file.js';
import { trafficRole, writeName, type HttpRequestRecord, type HttpResponseRecord } from '../src/harness/traffic/exchange.js';
import { idempotencyKeyOf } from '../src/harness/traffic/idempotency.js';
import { isModelCall } from '../src/harness/traffic/model-apis.js';
import { Recording, Replay } from '../src/harness/traffic/replay.js';
import { keptBody, keptHeaders, keptUrl } from '../src/harness/traffic/secrets.js';
import { SERVICE_LEDGER_FILE, ServiceLedger } from '../src/harness/traffic/service-ledger.js';

const work = mkdtempSync(join(tmpdir(), 'killpoint-traffic-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let folders = 0;
const ledgerFile = (): string => join(mkdtempSync(join(work, `run-${folders++}-`)), SERVICE_LEDGER_FILE);

const REFUND_URL = 'https://shop.example/v1/refunds';
const refund = (headers: Record<string, string> = {}, body = '{"order":"A-17","cents":4200}'): HttpRequestRecord => ({ method: 'POST', url: REFUND_URL, headers, body });
const created: HttpResponseRecord = { status: 201, headers: { 'content-type': 'application/json' }, chunks: ['{"id":"re_1"}'] };

describe('what a recording keeps of a request', () => {
  test('no credentials, in headers or in the query; the idempotency keys, the usual and the user\'s, stay', () => {
    const headers = keptHeaders(
      Object.entries({ Authorization: 'Bearer sk-live', Cookie: 'session=1', 'X-Api-Key': 'k', 'x-goog-api-key': 'g', 'OpenAI-Organization': 'org', 'X-Access-Token': 't', 'Idempotency-Key': 'run-1:refund', 'X-Refund-Key': 'r', 'Content-Type': 'application/json' }),
      ['X-Refund-Key'],
    );
    expect(headers).toEqual({ 'content-type': 'application/json', 'idempotency-key': 'run-1:refund', 'openai-organization': 'org', 'x-refund-key': 'r' });
    expect(keptUrl('https://maps.example/geo?q=Lyon&api_key=abc&access_token=t')).toBe('https://maps.example/geo?q=Lyon');
    expect(keptUrl('https://acct.blob.example/c/f?sv=2024&sig=s3cr3t&code=k')).toBe('https://acct.blob.example/c/f?sv=2024');
    // A credential header stays out even when named as the idempotency header.
    expect(keptHeaders([['Authorization', 'Bearer sk-live']], ['Authorization'])).toEqual({});
  });

  test('a JSON body keeps its credential fields in place with their values left out; other bodies as they are', () => {
    expect(JSON.parse(keptBody('{"grant_type":"client_credentials","client_secret":"cs","nested":{"api_key":"k","max_tokens":5}}'))).toEqual({ grant_type: 'client_credentials', client_secret: '[left out]', nested: { api_key: '[left out]', max_tokens: 5 } });
    expect(keptBody('{"order":"A-17","cents":4200}')).toBe('{"order":"A-17","cents":4200}');
    expect(keptBody('data: {"token":"t"}\n\n')).toBe('data: {"token":"t"}\n\n');
  });

  test('a request is a model call by its API\'s shape, or under a URL the user names; else a read or a write by its method', () => {
    const model = (url: string, named: string[] = []) => isModelCall(new URL(url), named);
    expect(['https://api.openai.com/v1/chat/completions', 'http://127.0.0.1:8080/v1/chat/completions', 'https://api.openai.com/v1/responses', 'https://api.anthropic.com/v1/messages', 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent', 'https://ai-gateway.vercel.sh/v1/ai/language-model'].map((u) => model(u))).toEqual([true, true, true, true, true, true]);
    expect(model('https://shop.example/v1/refunds')).toBe(false);
    expect(model('https://llm.internal/generate', ['https://llm.internal/'])).toBe(true);
    const role = (method: string, url: string) => trafficRole({ method, url }, (u) => isModelCall(u));
    expect([role('POST', 'https://api.openai.com/v1/chat/completions'), role('GET', REFUND_URL), role('HEAD', REFUND_URL), role('POST', REFUND_URL), role('DELETE', REFUND_URL)]).toEqual(['model', 'read', 'read', 'write', 'write']);
    expect(writeName(refund())).toBe('POST shop.example/v1/refunds');
  });
});

describe('the services killpoint plays: a write committed, then answered', () => {
  test('without a key, every repeat commits again: the refund is done twice', () => {
    const ledger = new ServiceLedger(ledgerFile());
    expect(ledger.answer(refund(), created)).toEqual({ outcome: 'committed', response: created });
    expect(ledger.answer(refund(), created).outcome).toBe('committed');
    expect(ledger.committedWrites()).toEqual([
      { kind: 'POST', target: 'shop.example/v1/refunds', args: '{"cents":4200,"order":"A-17"}', key: null },
      { kind: 'POST', target: 'shop.example/v1/refunds', args: '{"cents":4200,"order":"A-17"}', key: null },
    ]);
    // Reads see the services as after one refund, as the recording saw them: the repeat is the bug, not a new state.
    expect(ledger.distinctCommittedCount).toBe(1);
  });

  test('a key seen before returns the first answer and commits nothing, in a later life too (the ledger is a file of the run\'s state)', () => {
    const file = ledgerFile();
    const keyed = refund({ 'idempotency-key': 'run-1:call_refund' });
    expect(new ServiceLedger(file).answer(keyed, created).outcome).toBe('committed');
    const nextLife = new ServiceLedger(file);
    // The body's keys in another order are the same request.
    const again = nextLife.answer({ ...keyed, body: '{"cents":4200,"order":"A-17"}' }, { ...created, chunks: ['{"id":"re_2"}'] });
    expect(again).toEqual({ outcome: 'repeat-answered', response: created });
    expect(nextLife.committedWrites()).toHaveLength(1);
    expect(nextLife.distinctCommittedCount).toBe(1);
  });

  test('a key made anew in every life (a random id) never matches: done twice', () => {
    const file = ledgerFile();
    new ServiceLedger(file).answer(refund({ 'idempotency-key': 'b1c7-first-life' }), created);
    new ServiceLedger(file).answer(refund({ 'idempotency-key': '90aa-second-life' }), created);
    expect(new ServiceLedger(file).committedWrites()).toHaveLength(2);
  });

  test('the same key with another body is refused as Stripe refuses it, and reported; nothing is committed', () => {
    const ledger = new ServiceLedger(ledgerFile());
    ledger.answer(refund({ 'Idempotency-Key': 'k1' }), created);
    const other = ledger.answer(refund({ 'Idempotency-Key': 'k1' }, '{"order":"A-17","cents":9900}'), created);
    expect(other.outcome).toBe('refused');
    expect(other.response.status).toBe(400);
    expect(other.response.chunks.join('')).toMatch(/idempotency_error.*same parameters/);
    expect(ledger.committedWrites()).toHaveLength(1);
    expect(ledger.refusedWrites().map((w) => [w.kind, w.args, w.reason])).toEqual([['POST', '{"cents":9900,"order":"A-17"}', 'idempotency key reused with another request']]);
  });

  test('a header the user names is a key like the usual ones', () => {
    expect(idempotencyKeyOf({ 'x-refund-key': 'r1' })).toBeNull();
    expect(idempotencyKeyOf({ 'x-refund-key': 'r1' }, ['X-Refund-Key'])).toBe('r1');
    const file = ledgerFile();
    const ledger = new ServiceLedger(file, ['X-Refund-Key']);
    ledger.answer(refund({ 'x-refund-key': 'r1' }), created);
    expect(ledger.answer(refund({ 'x-refund-key': 'r1' }), created).outcome).toBe('repeat-answered');
  });
});

const entry = (role: CassetteEntry['role'], request: HttpRequestRecord, body: string, afterWrites = 0): CassetteEntry => ({ role, request, response: { status: 200, headers: {}, chunks: [body] }, afterWrites });
const chat = (messages: unknown[]): HttpRequestRecord => ({ method: 'POST', url: 'https://api.openai.com/v1/chat/completions', headers: {}, body: JSON.stringify({ model: 'gpt-5', messages }) });
const order: HttpRequestRecord = { method: 'GET', url: 'https://shop.example/v1/orders/A-17', headers: {}, body: '' };

describe('answers from the recording', () => {
  const replay = new Replay([
    entry('model', chat([{ role: 'user', content: 'refund A-17' }]), 'call refund'),
    entry('read', order, '{"refunded":0}', 0),
    entry('write', refund({ 'idempotency-key': 'first-life-key' }), '{"id":"re_1"}', 0),
    entry('read', order, '{"refunded":4200}', 1),
  ]);

  test('a model call by its conversation; another conversation is not in it', () => {
    expect(replay.answer('model', { ...chat([{ content: 'refund A-17', role: 'user' }]) }, 0)?.chunks).toEqual(['call refund']);
    expect(replay.answer('model', chat([{ role: 'user', content: 'refund A-18' }]), 0)).toBeNull();
  });

  test('a read as the services stood: before the refund\'s commit and after it', () => {
    expect(replay.answer('read', order, 0)?.chunks).toEqual(['{"refunded":0}']);
    expect(replay.answer('read', order, 1)?.chunks).toEqual(['{"refunded":4200}']);
    expect(replay.answer('read', order, 2)?.chunks).toEqual(['{"refunded":4200}']);
  });

  test('a write by what it asks, whatever its key; a write the run never killed never made is not in it', () => {
    expect(replay.answer('write', refund({ 'idempotency-key': 'another-life-key' }), 1)?.chunks).toEqual(['{"id":"re_1"}']);
    expect(replay.answer('write', refund({}, '{"order":"A-18","cents":4200}'), 1)).toBeNull();
  });

  test('the recording keeps every exchange in order; a request asked again gets the next answer recorded for it, then the last', () => {
    const recording = new Recording();
    const busy = { status: 429, headers: {}, chunks: ['slow down'] };
    const model = { method: 'POST', url: 'https://api.openai.com/v1/chat/completions', headers: {}, body: '{"messages":[]}' };
    for (const e of [{ ...entry('model', model, 'x'), response: busy }, entry('model', model, 'ok'), entry('read', order, 'pending', 0), entry('read', order, 'done', 0)]) recording.add(e);
    expect(recording.exchanges.map((e) => [e.role, e.response.chunks[0]])).toEqual([['model', 'slow down'], ['model', 'ok'], ['read', 'pending'], ['read', 'done']]);
    // An SDK's retry after the 429 gets the 200 that followed; a poll gets "pending", then "done", then "done".
    const replay = new Replay(recording.exchanges);
    expect([0, 1, 2].map(() => replay.answer('model', model, 0)?.status)).toEqual([429, 200, 200]);
    expect([0, 1, 2].map(() => replay.answer('read', order, 0)?.chunks[0])).toEqual(['pending', 'done', 'done']);
  });
});

describe('the cassette file', () => {
  const recordedFor = { module: 'src/agent.ts', input: 'sha256:1' };
  const cassette: Cassette = { format: CASSETTE_FORMAT, version: CASSETTE_VERSION, recordedFor, exchanges: [entry('read', order, '{}')] };

  test('written and read back as it was', () => {
    const file = join(work, 'ok.json');
    writeCassette(file, cassette);
    expect(readCassette(file, recordedFor)).toEqual(cassette);
  });

  test.each([
    ['not JSON', '{"format":', /bad\.json: not a cassette: /],
    ['another format', JSON.stringify({ format: 'vcr' }), /bad\.json: not a killpoint HTTP cassette/],
    ['another version', JSON.stringify({ ...cassette, version: 2 }), /bad\.json: "version" is 2; this killpoint reads version 1/],
    ['another module', JSON.stringify({ ...cassette, recordedFor: { ...recordedFor, module: 'src/other.ts' } }), /recorded for module "src\/other\.ts", not src\/agent\.ts/],
    ['another input', JSON.stringify({ ...cassette, recordedFor: { ...recordedFor, input: 'sha256:2' } }), /recorded for src\/agent\.ts with another input \(digest sha256:2, now sha256:1\)/],
    ['an exchange without a role', JSON.stringify({ ...cassette, exchanges: [{ ...cassette.exchanges[0], role: 'other' }] }), /exchanges\[0\]\.role is "other": expected model, read or write/],
    ['a URL that is not one', JSON.stringify({ ...cassette, exchanges: [{ ...cassette.exchanges[0], request: { ...order, url: 'shop/v1' } }] }), /exchanges\[0\]\.request\.url is not a URL: "shop\/v1"/],
    ['a status no answer has', JSON.stringify({ ...cassette, exchanges: [{ ...cassette.exchanges[0], response: { status: 42, headers: {}, chunks: [''] } }] }), /exchanges\[0\]\.response\.status should be an HTTP status from 200 to 599, got 42/],
    ['headers that are not strings', JSON.stringify({ ...cassette, exchanges: [{ ...cassette.exchanges[0], response: { status: 200, headers: { a: 1 }, chunks: [''] } }] }), /exchanges\[0\]\.response\.headers should be an object of strings/],
  ])('%s: refused, naming the file and what is wrong', (_, text, message) => {
    const file = join(work, 'bad.json');
    writeFileSync(file, text);
    expect(() => readCassette(file, recordedFor)).toThrow(CassetteError);
    expect(() => readCassette(file, recordedFor)).toThrow(message);
  });
});
