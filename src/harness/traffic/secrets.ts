// What a recording never holds: credentials. A cassette is meant for the repository, read in diffs,
// so a header or a query parameter that carries a secret is left out by its name: the usual ones
// (Authorization, cookies, x-api-key) and any whose name says key, token, secret, password or
// signature. The idempotency key headers are kept: a service's answer to a repeat depends on them.

import { isIdempotencyHeader } from './idempotency.js';

const SECRET_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key']);
const SECRET_WORDS = /key|token|secret|password|passwd|signature|credential|auth/i;

/** Whether a header may be kept in a recording (`idempotencyHeaders`: the names the user adds to the usual ones). */
export function isSecretHeader(name: string, idempotencyHeaders: readonly string[] = []): boolean {
  const lower = name.toLowerCase();
  if (isIdempotencyHeader(lower, idempotencyHeaders)) return false;
  return SECRET_HEADERS.has(lower) || SECRET_WORDS.test(lower);
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
  for (const name of [...parsed.searchParams.keys()]) if (SECRET_WORDS.test(name)) parsed.searchParams.delete(name);
  return parsed.toString();
}
