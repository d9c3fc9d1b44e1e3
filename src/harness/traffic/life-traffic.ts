// The network boundary inside one life: every request the life makes through fetch or node:http
// (every SDK above them: OpenAI's, the AI SDK's providers, LangChain's, Stripe's) is seen here and
// answered by killpoint, but the engine's own traffic (its server, its local world), which passes
// through untouched. In a run that records, the request goes to the real endpoint once and its
// answer is kept; in every other life it is answered from the cassette and nothing leaves the
// machine. A write is committed to the run's ledger before its answer (service-ledger.ts). Each
// moment is an event, so a kill point: the request sent, the write committed (the gap), each chunk
// of the answer and its end.

import { BatchInterceptor } from '@mswjs/interceptors';
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest';
import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import { syncBuiltinESMExports } from 'node:module';
import type { CommittedWrite, RefusedWrite } from '../check/outcome.js';
import type { CassetteEntry } from './cassette-file.js';
import { trafficRole, writeName, type HttpRequestRecord, type HttpResponseRecord } from './exchange.js';
import { HTTP_CHUNK, HTTP_REQUEST, HTTP_RESPONSE, SERVICE_COMMIT } from './event-kinds.js';
import { isModelCall } from './model-apis.js';
import { Recording, Replay } from './replay.js';
import { keptHeaders, keptUrl } from './secrets.js';
import { bodyKey, ServiceLedger } from './service-ledger.js';

export interface LifeTrafficOptions {
  /** record: the run never killed, to the real endpoints; replay: every other life, from `cassette`. */
  mode: 'record' | 'replay';
  cassette?: readonly CassetteEntry[];
  /** The run's ledger, a file in its state folder. */
  ledgerFile: string;
  emit: (event: { kind: string; [field: string]: unknown }) => void;
  /** Origins (`http://127.0.0.1:9070`) of the engine's own traffic: passed through, neither recorded nor answered. */
  passThrough?: readonly string[];
  modelUrls?: readonly string[];
  idempotencyHeaders?: readonly string[];
}

export interface LifeTraffic {
  /** What this life recorded (record mode). */
  recorded(): CassetteEntry[];
  /** The writes the services hold, over the run's lives so far. */
  committedWrites(): CommittedWrite[];
  refusedWrites(): RefusedWrite[];
  /** The first request the recording did not hold, named, or null. */
  diverged(): string | null;
  /** Takes the interception off this thread. */
  stop(): void;
}

/** The error a request the recording does not hold fails with, in the agent's code. */
export class TrafficDiverged extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TrafficDiverged';
  }
}

/** Response headers that describe the bytes on the wire, not the body as it is handed back. */
const WIRE_HEADERS: ReadonlySet<string> = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/** Starts seeing this thread's requests; `stop()` before the thread runs another life. */
export function startLifeTraffic(options: LifeTrafficOptions): LifeTraffic {
  const realFetch = globalThis.fetch;
  const ledger = new ServiceLedger(options.ledgerFile, options.idempotencyHeaders);
  const replay = new Replay(options.cassette ?? []);
  const recording = new Recording();
  let diverged: string | null = null;
  const interceptor = new BatchInterceptor({ name: 'killpoint-traffic', interceptors: [new ClientRequestInterceptor(), new FetchInterceptor()] });
  interceptor.apply();
  // The interceptor replaces http.request and its kin on the CommonJS module; a module that
  // imported them by name (import { request } from 'node:http') holds the ESM binding, which
  // follows only when told to.
  syncBuiltinESMExports();
  interceptor.on('request', async ({ request, controller }) => {
    if (passesThrough(request.url, options.passThrough ?? [])) return;
    const record = await requestRecord(request, options.idempotencyHeaders ?? []);
    const role = trafficRole(record, (url) => isModelCall(url, options.modelUrls ?? []));
    const name = writeName(record);
    options.emit({ kind: HTTP_REQUEST.kind, request: name });
    const afterWrites = ledger.committedCount;
    let response = options.mode === 'record' ? await sendForReal(realFetch, request, record) : replay.answer(role, record, afterWrites);
    if (role === 'write') {
      const answer = ledger.answer(record, response);
      if (answer.outcome === 'committed') options.emit({ kind: SERVICE_COMMIT.kind, request: name });
      if (response !== null) response = answer.response;
    }
    if (response === null) {
      diverged ??= `a request the run never killed never made: ${name} ${bodyKey(record.body)}`;
      controller.errorWith(new TrafficDiverged(diverged));
      return;
    }
    if (options.mode === 'record') recording.add({ role, request: record, response, afterWrites });
    controller.respondWith(handedBack(response, name, options.emit));
  });
  return {
    recorded: () => recording.exchanges,
    committedWrites: () => ledger.committedWrites(),
    refusedWrites: () => ledger.refusedWrites(),
    diverged: () => diverged,
    stop: () => {
      interceptor.dispose();
      syncBuiltinESMExports();
    },
  };
}

function passesThrough(url: string, origins: readonly string[]): boolean {
  const origin = new URL(url).origin;
  return origins.some((o) => new URL(o).origin === origin);
}

async function requestRecord(request: Request, idempotencyHeaders: readonly string[]): Promise<HttpRequestRecord> {
  return { method: request.method.toUpperCase(), url: keptUrl(request.url), headers: keptHeaders(request.headers.entries(), idempotencyHeaders), body: await request.clone().text() };
}

/** The request sent to its real endpoint (with every header, secrets too), its answer read chunk by chunk. */
async function sendForReal(realFetch: typeof fetch, request: Request, record: HttpRequestRecord): Promise<HttpResponseRecord> {
  const body = record.method === 'GET' || record.method === 'HEAD' ? undefined : record.body;
  const real = await realFetch(request.url, { method: record.method, headers: request.headers, body });
  const chunks: string[] = [];
  if (real.body !== null) {
    const decoder = new TextDecoder();
    for await (const chunk of real.body as unknown as AsyncIterable<Uint8Array>) chunks.push(decoder.decode(chunk, { stream: true }));
    const rest = decoder.decode();
    if (rest !== '') chunks.push(rest);
  }
  const headers = keptHeaders([...real.headers.entries()].filter(([name]) => !WIRE_HEADERS.has(name.toLowerCase())));
  return { status: real.status, headers, chunks: chunks.length === 0 ? [''] : chunks };
}

/** The answer as the agent gets it: its chunks one at a time, each an event, and its end an event. */
function handedBack(response: HttpResponseRecord, name: string, emit: LifeTrafficOptions['emit']): Response {
  const encoder = new TextEncoder();
  const chunks = response.chunks;
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next === chunks.length) {
        emit({ kind: HTTP_RESPONSE.kind, request: name });
        controller.close();
        return;
      }
      const chunk = chunks[next]!;
      if (chunks.length > 1) emit({ kind: HTTP_CHUNK.kind, request: name, chunk: next, chunks: chunks.length });
      next += 1;
      controller.enqueue(encoder.encode(chunk));
    },
  });
  const empty = response.status === 204 || response.status === 304;
  return new Response(empty ? null : body, { status: response.status, headers: response.headers });
}
