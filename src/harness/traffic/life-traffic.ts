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
import { AsyncLocalStorage } from 'node:async_hooks';
import { syncBuiltinESMExports } from 'node:module';
import type { CommittedWrite, RefusedWrite } from '../check/outcome.js';
import type { CassetteEntry } from './cassette-file.js';
import { bodyOf, chunkBytes, chunksOf } from './body-text.js';
import { bodyKey, trafficRole, writeName, type HttpRequestRecord, type HttpResponseRecord } from './exchange.js';
import { HTTP_CHUNK, HTTP_REQUEST, HTTP_RESPONSE, SERVICE_COMMIT } from './event-kinds.js';
import { isModelCall } from './model-apis.js';
import { Recording, Replay } from './replay.js';
import { keptBody, keptHeaders, keptUrl } from './secrets.js';
import { ServiceLedger } from './service-ledger.js';
import { modelDivergence } from './divergence.js';

export interface LifeTrafficOptions {
  /** record: the run never killed, to the real endpoints; replay: every other life, from `cassette`. */
  mode: 'record' | 'replay';
  cassette?: readonly CassetteEntry[];
  /** The cassette's file, as divergences name it. */
  cassetteFile?: string;
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
  /**
   * Rejects at the first request the recording does not hold (a TrafficDiverged, named as the life
   * loop reads a rejected conversation), or that could not be recorded (a RecordingFailed): the life
   * is over then, whatever the agent makes of the error it was answered with.
   */
  failure: Promise<never>;
  /** Runs `life` so that every request it makes, however late, is answered by this life's listener. */
  within<T>(life: () => Promise<T>): Promise<T>;
  /** Takes this life off the interception (requests pass through again). */
  stop(): void;
}

/** A life whose request the recording does not hold: named as the life loop reads a rejected conversation (a verdict about the recovery). */
export class TrafficDiverged extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversationRejected';
  }
}

/** A request of the recording run that its endpoint did not answer: the cassette cannot be made (bad input). */
export class RecordingFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordingFailed';
  }
}

/** A request killpoint could not answer from what it holds (a cassette entry it cannot hand back): bad input. */
export class TrafficFault extends RecordingFailed {
  constructor(message: string) {
    super(message);
    this.name = 'TrafficFault';
  }
}

/** A body as a verdict shows it: its first 200 characters. */
function shortBody(body: string): string {
  const key = bodyKey(body);
  return key.length > 200 ? `${key.slice(0, 200)}...` : key;
}

type RequestListener = (args: { request: Request; controller: { respondWith(response: Response): void; errorWith(error?: Error): void } }) => Promise<void>;

/** The interception of this thread, applied once; each life sets its listener. */
let applied: Interception | null = null;

/** One life's way of answering, while it is on (`stop()` takes it off). */
interface LifeListener {
  answer: RequestListener;
  on: boolean;
  /** The engine's own origins, passed through whenever asked. */
  passThrough: readonly string[];
}

/**
 * The life a request was made in: the async context it runs in (lifeOfRequests.run). Lives run in
 * killpoint's process one after another on a thread, and one killed there is abandoned, not
 * stopped: a request it makes later is its own, answered by its own listener (its events refused by
 * its fence, its ledger in its private folder), never by the life that runs next.
 */
const lifeOfRequests = new AsyncLocalStorage<LifeListener>();

interface Interception {
  /** The life that started last: where a thread that runs lives alone sends a request made in no life's context. */
  listener: LifeListener | null;
  /** fetch as it was before the interception: the recording's way to the real endpoints. */
  realFetch: typeof fetch;
  /**
   * The thread runs lives alone (a child, a thread of lives): what no life's context claims is the
   * last life's, or refused while none runs. On killpoint's own thread it is killpoint's own, and
   * passes through.
   */
  livesOnly: boolean;
}

/**
 * Applies the interception to this thread (once), before a life's packages capture fetch or
 * node:http: an SDK client made as a module loads keeps the fetch it found then.
 */
export function applyInterception(livesOnly = false): Interception {
  if (applied !== null) return applied;
  const state: Interception = { listener: null, realFetch: globalThis.fetch, livesOnly };
  const interceptor = new BatchInterceptor({ name: 'killpoint-traffic', interceptors: [new ClientRequestInterceptor(), new FetchInterceptor()] });
  interceptor.apply();
  // The interceptor replaces http.request and its kin on the CommonJS module; a module that
  // imported them by name (import { request } from 'node:http') holds the ESM binding, which
  // follows only when told to.
  syncBuiltinESMExports();
  interceptor.on('request', async (args) => {
    const own = lifeOfRequests.getStore();
    if (own !== undefined) return answerInLife(own, args as never);
    if (!state.livesOnly) return;
    if (state.listener?.on === true) return state.listener.answer(args as never);
    // A module's own network code as it loads, before any life: never let out of a child that replays.
    args.controller.respondWith(Response.json({ error: { type: 'killpoint', message: `${args.request.method} ${keptUrl(args.request.url)}: asked outside any life (as the module loaded); killpoint plays only a life's traffic` } }, { status: 400 }));
  });
  applied = state;
  return state;
}

/** A request made in a life's context: its own answer, or, once the life is over (killed in process and abandoned), none: it never passes through. */
async function answerInLife(life: LifeListener, args: Parameters<RequestListener>[0]): Promise<void> {
  if (passesThrough(args.request.url, life.passThrough)) return;
  if (life.on) return life.answer(args);
  args.controller.errorWith(new Error(`${args.request.method} ${keptUrl(args.request.url)}: asked by a life that has ended; killpoint answers nothing more for it`));
}

/** Response headers that describe the bytes on the wire, not the body as it is handed back. */
const WIRE_HEADERS: ReadonlySet<string> = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/**
 * How one life's requests are answered, wherever they come from: the interception in the life's
 * own thread or process (startLifeTraffic), or a local endpoint that stands for a service of an
 * agent in another language (traffic-proxy.ts). `answer` never throws for a request the recording
 * does not hold: it answers 400 and rejects `failure`.
 */
export interface TrafficAnswerer {
  answer(request: Request): Promise<Response>;
  recorded(): CassetteEntry[];
  committedWrites(): CommittedWrite[];
  refusedWrites(): RefusedWrite[];
  diverged(): string | null;
  failure: Promise<never>;
}

/**
 * The answerer of one life. `realFetch`: the way to the real endpoints while recording. With
 * `answerEvents: false` the answer is handed over without the chunk and end events (a local
 * endpoint cannot tell when a process elsewhere reads it: traffic-proxy.ts).
 */
export function trafficAnswerer(options: LifeTrafficOptions, realFetch: typeof fetch, answerEvents = true): TrafficAnswerer {
  const ledger = new ServiceLedger(options.ledgerFile, options.idempotencyHeaders);
  const replay = new Replay(options.cassette ?? []);
  const recording = new Recording();
  let diverged: string | null = null;
  let fail: (error: Error) => void = () => undefined;
  const failure = new Promise<never>((_, reject) => (fail = reject));
  failure.catch(() => undefined);
  const leave = (error: Error): Response => {
    fail(error);
    // Answered as a request refused (400), which SDKs do not retry: the life ends on `failure`.
    return Response.json({ error: { type: 'killpoint', message: error.message } }, { status: 400 });
  };
  const answer = async (request: Request): Promise<Response> => {
    const record = await requestRecord(request, options.idempotencyHeaders ?? []);
    const role = trafficRole(record, (url) => isModelCall(url, options.modelUrls ?? []));
    const name = writeName(record);
    options.emit({ kind: HTTP_REQUEST.kind, request: name });
    const afterWrites = ledger.distinctCommittedCount;
    let response: HttpResponseRecord | null;
    try {
      response = options.mode === 'record' ? await sendForReal(realFetch, request) : replay.answer(role, record, afterWrites);
    } catch (error) {
      return leave(new RecordingFailed(`recording: ${keptUrl(request.url)} did not answer (${reasonOf(error)})`));
    }
    if (role === 'write') {
      const written = ledger.answer(record, response);
      if (written.outcome === 'committed') options.emit({ kind: SERVICE_COMMIT.kind, request: name });
      if (response !== null) response = written.response;
    }
    if (response === null) {
      diverged ??= role === 'model' ? modelDivergence(options.cassette ?? [], record, options.cassetteFile) : `a request the run never killed never made: ${name} ${shortBody(record.body)}`;
      return leave(new TrafficDiverged(diverged));
    }
    if (options.mode === 'record') recording.add({ role, request: record, response, afterWrites });
    return handedBack(response, name, request.method, answerEvents ? options.emit : () => undefined);
  };
  return {
    answer: async (request) => {
      try {
        return await answer(request);
      } catch (error) {
        // A life killed in process, asking after its kill point: its fence refused the event, and it gets no answer.
        if ((error as Error).name === 'LifeKilled') throw error;
        // killpoint's own fault answering (a cassette entry it cannot hand back): the life ends on it, bad input.
        return leave(new TrafficFault(`${request.method} ${keptUrl(request.url)}: killpoint could not answer it (${(error as Error).message})`));
      }
    },
    recorded: () => recording.exchanges,
    committedWrites: () => ledger.committedWrites(),
    refusedWrites: () => ledger.refusedWrites(),
    diverged: () => diverged,
    failure,
  };
}

/** Starts answering this thread's requests for one life, the requests made in `within(...)` its own; `stop()` before the thread runs another. */
export function startLifeTraffic(options: LifeTrafficOptions): LifeTraffic {
  const interception = applyInterception();
  const answerer = trafficAnswerer(options, interception.realFetch);
  const listener: LifeListener = {
    on: true,
    passThrough: options.passThrough ?? [],
    answer: async ({ request, controller }) => {
      if (passesThrough(request.url, options.passThrough ?? [])) return;
      try {
        controller.respondWith(await answerer.answer(request));
      } catch (error) {
        controller.errorWith(error as Error);
      }
    },
  };
  interception.listener = listener;
  return {
    within: (life) => lifeOfRequests.run(listener, life),
    recorded: answerer.recorded,
    committedWrites: answerer.committedWrites,
    refusedWrites: answerer.refusedWrites,
    diverged: answerer.diverged,
    failure: answerer.failure,
    stop: () => {
      listener.on = false;
      if (interception.listener === listener) interception.listener = null;
    },
  };
}

/** Why a request failed, in a few words: the system's code where there is one (ECONNREFUSED). */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

function passesThrough(url: string, origins: readonly string[]): boolean {
  const origin = new URL(url).origin;
  return origins.some((o) => new URL(o).origin === origin);
}

async function requestRecord(request: Request, idempotencyHeaders: readonly string[]): Promise<HttpRequestRecord> {
  const { body, encoding } = bodyOf(new Uint8Array(await request.clone().arrayBuffer()));
  const kept = { method: request.method.toUpperCase(), url: keptUrl(request.url), headers: keptHeaders(request.headers.entries(), idempotencyHeaders) };
  return encoding === undefined ? { ...kept, body: keptBody(body) } : { ...kept, body, encoding };
}

/** Request headers that belong to one connection, not to the request: fetch sets its own. */
const HOP_HEADERS: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'transfer-encoding', 'expect', 'upgrade', 'content-length', 'host', 'proxy-connection', 'te', 'trailer']);

/** The request sent to its real endpoint (its bytes, every header but the connection's, secrets too), its answer read chunk by chunk. */
async function sendForReal(realFetch: typeof fetch, request: Request): Promise<HttpResponseRecord> {
  const method = request.method.toUpperCase();
  const body = method === 'GET' || method === 'HEAD' ? undefined : await request.clone().arrayBuffer();
  const headers = [...request.headers.entries()].filter(([name]) => !HOP_HEADERS.has(name.toLowerCase()));
  const real = await realFetch(request.url, { method, headers, ...(body === undefined ? {} : { body }) });
  const parts: Uint8Array[] = [];
  if (real.body !== null) for await (const part of real.body as unknown as AsyncIterable<Uint8Array>) parts.push(part);
  const { chunks, encoding } = chunksOf(parts);
  const kept = keptHeaders([...real.headers.entries()].filter(([name]) => !WIRE_HEADERS.has(name.toLowerCase())));
  if (encoding !== undefined) return { status: real.status, headers: kept, chunks, encoding };
  // A credential in an answer (a token endpoint's access_token) is left out as in a request.
  return { status: real.status, headers: kept, chunks: chunks.length === 0 ? [''] : chunks.map(keptBody) };
}

/** Statuses whose answer has no body, whatever was recorded. */
const NO_BODY: ReadonlySet<number> = new Set([101, 204, 205, 304]);

/** The answer as the agent gets it: its chunks one at a time as it reads them, each an event, and its end an event. */
function handedBack(response: HttpResponseRecord, name: string, method: string, emit: LifeTrafficOptions['emit']): Response {
  if (NO_BODY.has(response.status) || method.toUpperCase() === 'HEAD') {
    emit({ kind: HTTP_RESPONSE.kind, request: name });
    return new Response(null, { status: response.status, headers: response.headers });
  }
  const chunks = response.chunks;
  let next = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (next === chunks.length) {
          emit({ kind: HTTP_RESPONSE.kind, request: name });
          controller.close();
          return;
        }
        const chunk = chunks[next]!;
        if (chunks.length > 1) emit({ kind: HTTP_CHUNK.kind, request: name, chunk: next, chunks: chunks.length });
        next += 1;
        controller.enqueue(chunkBytes(chunk, response.encoding));
      },
    },
    // Nothing pulled ahead: a chunk is handed over when the agent reads it, and its event is then.
    { highWaterMark: 0 },
  );
  return new Response(body, { status: response.status, headers: response.headers });
}
