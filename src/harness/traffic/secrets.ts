// What a recording never holds: credentials. A cassette is meant for the repository, read in diffs,
// so a header or a query parameter that carries a secret is left out by its name: the usual ones
// (Authorization, cookies, x-api-key, a SAS `sig`) and any whose name says key, token, secret,
// password or signature; a JSON body's credential fields (client_secret, access_token, api_key)
// keep their place with the value left out. The idempotency key headers are kept: a service's
// answer to a repeat depends on them. Secrets written into a URL's path (a webhook's token) are not
// recognized.

import { isIdempotencyHeader } from './idempotency.js';

const SECRET_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key']);
const SECRET_WORDS = /key|token|secret|password|passwd|signature|credential|auth/i;
/** Query parameters that carry a key without saying so: Azure's SAS signature, Azure Functions' code. */
const SECRET_PARAMETERS: ReadonlySet<string> = new Set(['sig', 'code']);
/** Fields of a JSON body that carry a credential (OAuth's, an API's key in the body), by their exact name. */
const SECRET_FIELDS: ReadonlySet<string> = new Set(['api_key', 'apikey', 'apiKey', 'client_secret', 'clientSecret', 'access_token', 'accessToken', 'refresh_token', 'refreshToken', 'id_token', 'password']);

/** A header that carries a credential whatever else it is named for: never kept. */
export function isCredentialHeader(name: string): boolean {
  return SECRET_HEADERS.has(name.toLowerCase());
}

/** Whether a header may be kept in a recording (`idempotencyHeaders`: the names the user adds to the usual ones). */
export function isSecretHeader(name: string, idempotencyHeaders: readonly string[] = []): boolean {
  const lower = name.toLowerCase();
  if (SECRET_HEADERS.has(lower)) return true;
  return !isIdempotencyHeader(lower, idempotencyHeaders) && SECRET_WORDS.test(lower);
}

/** The headers without the secrets, names in lower case, in name order (a stable diff). */
export function keptHeaders(headers: Iterable<[string, string]>, idempotencyHeaders: readonly string[] = []): Record<string, string> {
  const kept: [string, string][] = [];
  for (const [name, value] of headers) if (!isSecretHeader(name, idempotencyHeaders)) kept.push([name.toLowerCase(), value]);
  kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(kept);
}

/** The URL without the query parameters whose names say they carry a secret (`?api_key=`, `?access_token=`). */
export function keptUrl(url: string): string {
  const parsed = new URL(url);
  for (const name of [...parsed.searchParams.keys()]) if (SECRET_WORDS.test(name) || SECRET_PARAMETERS.has(name.toLowerCase())) parsed.searchParams.delete(name);
  return parsed.toString();
}

/** A JSON body with its credential fields' values replaced, at any depth; any other body as it is. */
export function keptBody(body: string): string {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return body;
  }
  const scrub = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(scrub);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, SECRET_FIELDS.has(k) ? '[left out]' : scrub(x)]));
  };
  const kept = JSON.stringify(scrub(value));
  return kept === JSON.stringify(value) ? body : kept;
}
