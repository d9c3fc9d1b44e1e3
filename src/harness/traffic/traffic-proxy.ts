// Local endpoints that stand for an agent's services when the agent is not a Node process (a
// Python agent behind the kill protocol): one HTTP server on 127.0.0.1 per upstream the user names
// (--proxy NAME=URL), whose address the agent is given as KILLPOINT_PROXY_<NAME>. A request to it is
// the request to the upstream at the same path, and is answered as the interception answers a Node
// agent's (life-traffic.ts: recorded once, replayed, writes committed to the run's ledger before
// their answer). The agent waits for the answer meanwhile, so the request sent and the write
// committed are moments killpoint can kill it at, exactly; the answer is then handed over whole
// (how far a process elsewhere has read it cannot be seen from here).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TrafficAnswerer } from './life-traffic.js';

export interface Upstream {
  /** As the agent's variable names it: KILLPOINT_PROXY_<NAME>. */
  name: string;
  /** The base URL it stands for: https://api.shop.example/v1. */
  url: string;
}

export const PROXY_ENV_PREFIX = 'KILLPOINT_PROXY_';

export interface TrafficProxies {
  /** KILLPOINT_PROXY_<NAME>: the base URL of each local endpoint. */
  env: Record<string, string>;
  /** Answers nothing more: every request after this is cut (a life killed by killpoint). */
  stopAnswering(): void;
  close(): Promise<void>;
}

/** Request headers that belong to the connection to the local endpoint, not to the request. */
const LOCAL_HEADERS: ReadonlySet<string> = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'expect', 'upgrade', 'proxy-connection', 'te', 'trailer']);

/** The upstream URL a local request stands for: the base URL's path, then the request's path and query. */
export function upstreamUrl(base: string, localPath: string): string {
  const url = new URL(base);
  const local = new URL(localPath, 'http://local');
  url.pathname = `${url.pathname.replace(/\/$/, '')}${local.pathname}`;
  url.search = local.search;
  return url.href;
}

/** Starts one local endpoint per upstream, each answering through `answerer()` (the life's, asked per request). */
export async function startTrafficProxies(upstreams: readonly Upstream[], answerer: () => TrafficAnswerer): Promise<TrafficProxies> {
  let answering = true;
  const servers: Server[] = [];
  const env: Record<string, string> = {};
  for (const upstream of upstreams) {
    const server = createServer((req, res) => {
      if (!answering) return void res.destroy();
      void answerLocal(upstream, req, res, answerer, () => answering);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    env[`${PROXY_ENV_PREFIX}${upstream.name}`] = origin;
  }
  return {
    env,
    stopAnswering: () => {
      answering = false;
    },
    close: async () => {
      answering = false;
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => {
        s.closeAllConnections();
        s.close(() => resolve());
      })));
    },
  };
}

async function answerLocal(upstream: Upstream, req: IncomingMessage, res: ServerResponse, answerer: () => TrafficAnswerer, answering: () => boolean): Promise<void> {
  try {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const method = (req.method ?? 'GET').toUpperCase();
    const headers = Object.entries(req.headers).flatMap(([name, value]) => (LOCAL_HEADERS.has(name) || value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value] as [string, string]]));
    const body = method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(parts);
    const request = new Request(upstreamUrl(upstream.url, req.url ?? '/'), { method, headers, ...(body === undefined ? {} : { body }) });
    const response = await answerer().answer(request);
    // Killed at the request or the commit: the agent is gone, and gets nothing.
    if (!answering()) return void res.destroy();
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => (out[name] = value));
    res.writeHead(response.status, out);
    if (response.body !== null) for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
    res.end();
  } catch (error) {
    if (!answering()) return void res.destroy();
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { type: 'killpoint', message: (error as Error).message } }));
  }
}
