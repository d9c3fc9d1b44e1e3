// An HTTP exchange as killpoint keeps it: the request an agent's life sent (its method, URL, the
// headers that are not secrets, its body as text, or base64 where it is not UTF-8: body-text.ts) and the answer it got (status, headers, the body
// chunk by chunk, so that a streamed reply is replayed in the chunks it came in). The agent's traffic
// is sorted in three: calls to a hosted model (matched by their conversation), reads of a service
// (GET, HEAD, OPTIONS: answered from the recording) and writes (POST, PUT, PATCH, DELETE: committed to the
// run's service ledger, then answered).

import { canonicalJson } from '../../model/canonical-json.js';
import type { BodyEncoding } from './body-text.js';

export interface HttpRequestRecord {
  method: string;
  url: string;
  /** Header names in lower case, secrets left out (secrets.ts). */
  headers: Record<string, string>;
  /** The body as UTF-8 text ('' for none), or its bytes in base64 (`encoding`). */
  body: string;
  encoding?: BodyEncoding;
}

export interface HttpResponseRecord {
  status: number;
  headers: Record<string, string>;
  /** The body as it came, chunk by chunk (one chunk for a body read whole): UTF-8 text, or each chunk's bytes in base64 (`encoding`). */
  chunks: string[];
  encoding?: BodyEncoding;
}

export interface HttpExchange {
  request: HttpRequestRecord;
  response: HttpResponseRecord;
}

export type TrafficRole = 'model' | 'read' | 'write';

const READS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * What a request is to the world: a call to a hosted model (its URL is a model API's, model-apis.ts),
 * a read, or a write. A method that is not a read writes, as a service would take it.
 */
export function trafficRole(request: Pick<HttpRequestRecord, 'method' | 'url'>, isModelCall: (url: URL) => boolean): TrafficRole {
  if (isModelCall(new URL(request.url))) return 'model';
  return READS.has(request.method.toUpperCase()) ? 'read' : 'write';
}

/** What names a write in reports and checks: method, host and path, never its headers or key. */
export function writeName(request: Pick<HttpRequestRecord, 'method' | 'url'>): string {
  const url = new URL(request.url);
  return `${request.method.toUpperCase()} ${url.host}${url.pathname}`;
}

/** Where a request goes, its query aside: host and path. */
export function placeOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.host}${parsed.pathname}`;
}

/** A body as it is compared, as JSON: a JSON body in canonical form (key order is not a difference), other text as a string, none as null. */
export function bodyKey(body: string): string {
  if (body === '') return 'null';
  try {
    return canonicalJson(JSON.parse(body));
  } catch {
    return JSON.stringify(body);
  }
}
