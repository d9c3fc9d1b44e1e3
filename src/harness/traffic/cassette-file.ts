// The cassette: an agent's whole traffic as the runs never killed had it, recorded once and kept in
// the user's repository, so that every life after is answered from it and CI runs offline. JSON
// that reads well in a diff (one exchange per entry, headers sorted, secrets left out: secrets.ts),
// with what it was recorded for, so that a cassette of another module or input is refused by name
// rather than replayed into a divergence.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { HttpExchange, TrafficRole } from './exchange.js';

export const CASSETTE_FORMAT = 'killpoint-http-cassette';
export const CASSETTE_VERSION = 1;

/** What the traffic was recorded for: the module's path as given, and a digest of its input. */
export interface RecordedFor {
  module: string;
  input: string;
}

export interface CassetteEntry extends HttpExchange {
  role: TrafficRole;
  /** How many writes the services had committed when the request was made (reads are answered by it: replay.ts). */
  afterWrites: number;
}

export interface Cassette {
  format: typeof CASSETTE_FORMAT;
  version: typeof CASSETTE_VERSION;
  recordedFor: RecordedFor;
  exchanges: CassetteEntry[];
}

/** A cassette that cannot be used, named by its file and what is wrong: bad input of the check (exit 2). */
export class CassetteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CassetteError';
  }
}

/** The cassette in `file`, checked to be one killpoint wrote, in this format's version, for `expected`. */
export function readCassette(file: string, expected: RecordedFor): Cassette {
  return parseCassette(file, readFileSync(file, 'utf8'), expected);
}

/** The cassette in `text`, read from `file` (named in errors), checked as readCassette checks it. */
export function parseCassette(file: string, text: string, expected: RecordedFor): Cassette {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CassetteError(`${file}: not a cassette: ${(error as Error).message}`);
  }
  const c = value as Partial<Cassette> | null;
  if (c === null || typeof c !== 'object' || c.format !== CASSETTE_FORMAT) throw new CassetteError(`${file}: not a killpoint HTTP cassette (its "format" should be "${CASSETTE_FORMAT}")`);
  if (c.version !== CASSETTE_VERSION) throw new CassetteError(`${file}: "version" is ${JSON.stringify(c.version)}; this killpoint reads version ${CASSETTE_VERSION} (record it again with --record)`);
  if (!Array.isArray(c.exchanges)) throw new CassetteError(`${file}: "exchanges" should be a list`);
  const made = c.recordedFor;
  if (made?.module !== expected.module) throw new CassetteError(`${file}: recorded for module ${JSON.stringify(made?.module)}, not ${expected.module} (record it again with --record)`);
  if (made.input !== expected.input) throw new CassetteError(`${file}: recorded for ${expected.module} with another input (digest ${made.input}, now ${expected.input}); record it again with --record`);
  c.exchanges.forEach((e, i) => mustBeEntry(file, e, i));
  return c as Cassette;
}

function mustBeEntry(file: string, e: unknown, i: number): void {
  const entry = e as Partial<CassetteEntry> | null;
  const where = `${file}: exchanges[${i}]`;
  if (entry === null || typeof entry !== 'object') throw new CassetteError(`${where} should be an object`);
  if (entry.role !== 'model' && entry.role !== 'read' && entry.role !== 'write') throw new CassetteError(`${where}.role is ${JSON.stringify(entry.role)}: expected model, read or write`);
  if (typeof entry.request?.method !== 'string' || typeof entry.request.url !== 'string' || typeof entry.request.body !== 'string') throw new CassetteError(`${where}.request should have a method, a url and a body (strings)`);
  if (!URL.canParse(entry.request.url)) throw new CassetteError(`${where}.request.url is not a URL: ${JSON.stringify(entry.request.url)}`);
  const status = entry.response?.status;
  if (!Number.isInteger(status) || status! < 200 || status! > 599) throw new CassetteError(`${where}.response.status should be an HTTP status from 200 to 599, got ${JSON.stringify(status)}`);
  if (!Array.isArray(entry.response!.chunks) || !entry.response!.chunks.every((c) => typeof c === 'string')) throw new CassetteError(`${where}.response.chunks should be a list of strings`);
  for (const part of ['request', 'response'] as const) {
    const encoding = entry[part]!.encoding as unknown;
    if (encoding !== undefined && encoding !== 'base64') throw new CassetteError(`${where}.${part}.encoding is ${JSON.stringify(encoding)}: expected "base64", or none for UTF-8 text`);
    const headers = entry[part]!.headers as unknown;
    if (headers === null || typeof headers !== 'object' || Object.values(headers).some((v) => typeof v !== 'string')) throw new CassetteError(`${where}.${part}.headers should be an object of strings`);
  }
  if (!Number.isInteger(entry.afterWrites) || entry.afterWrites! < 0) throw new CassetteError(`${where}.afterWrites should be a whole number >= 0`);
}

/** What names a cassette's bytes: the lives of a check replay the cassette its parent read, no other. */
export function cassetteDigest(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

/** Writes the cassette, two-space indented with a newline at the end (a file for the repository). */
export function writeCassette(file: string, cassette: Cassette): void {
  writeFileSync(file, `${JSON.stringify(cassette, null, 2)}\n`);
}

/**
 * The exchanges of the cassette a check's parent read (by its digest), for a life to replay: one
 * removed, or replaced while the check runs, is refused (CassetteError), never replayed half and half.
 */
export function cassetteAsRead(file: string, arg: string, digest: string | undefined, recordedFor: RecordedFor): CassetteEntry[] {
  const bytes = existsSync(file) ? readFileSync(file) : null;
  if (bytes === null || cassetteDigest(bytes) !== digest) throw new CassetteError(`--cassette ${arg}: ${bytes === null ? 'removed' : 'replaced'} while the check ran (its lives replay the cassette it read first)`);
  return parseCassette(file, bytes.toString('utf8'), recordedFor).exchanges;
}
