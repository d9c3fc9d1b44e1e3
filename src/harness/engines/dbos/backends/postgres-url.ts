// KILLPOINT_POSTGRES_URL, the user's own Postgres server for DBOS's system database, checked
// before anything uses it: that it is a URL, a postgres:// one, and that something answers at
// the address it names. It is checked when a postgres system is chosen (config.ts), before a
// session opens, so that a bad URL is reported as what it is (bad input, exit 2, the variable
// named, the password hidden) and never as the failure of a run that wrote nothing.
//
// Whether something answers is asked of a small node child, synchronously: the choice of a system
// by name is synchronous, and Node has no synchronous socket. It costs one process start, once
// per URL; only a server that answers is handed to DBOS, whose own errors then say the rest (a
// database that does not exist, a password refused).

import { spawnSync } from 'node:child_process';
import { ProtocolError } from '../../../process/protocol.js';

export const POSTGRES_URL_VARIABLE = 'KILLPOINT_POSTGRES_URL';

/** How long a server may take to accept a connection before it counts as not answering. */
const ANSWER_TIMEOUT_MS = 10_000;

/** Where a URL names no port, Postgres listens here. */
const DEFAULT_PORT = '5432';

/** A URL with its password hidden, for messages (in the user part, or as a `password` parameter). */
export function maskUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@').replace(/([?&]password=)[^&]*/i, '$1***');
}

/** The connection attempt, run by `node -e`: exit 0 when it connects, else the error's code on stdout. */
const CONNECT_SOURCE = `'use strict';
const net = require('node:net');
const [host, port] = process.argv.slice(1);
const socket = host.startsWith('/') ? net.connect(host + '/.s.PGSQL.' + port) : net.connect({ host, port: Number(port) });
socket.on('connect', () => { socket.destroy(); process.exit(0); });
socket.on('error', (error) => { process.stdout.write(String(error.code || error.message)); process.exit(1); });
`;

const checked = new Map<string, string>();

/**
 * The URL in KILLPOINT_POSTGRES_URL, checked (once per URL), or null when it is not set; a
 * ProtocolError (exit 2) says what is wrong with it.
 */
export function givenPostgresUrl(): string | null {
  const given = process.env[POSTGRES_URL_VARIABLE];
  if (given === undefined || given === '') return null;
  let url = checked.get(given);
  if (url === undefined) {
    url = checkedPostgresUrl(given);
    checked.set(given, url);
  }
  return url;
}

function checkedPostgresUrl(given: string): string {
  const url = parsedPostgresUrl(given);
  const { host, port } = addressOf(url);
  const silence = whyNoAnswer(host, port);
  if (silence !== null) {
    throw new ProtocolError(`dbos postgres: preparing DBOS's system database at ${maskUrl(given)} failed: ${silence}; ${POSTGRES_URL_VARIABLE} must name a running Postgres server`);
  }
  return given;
}

function parsedPostgresUrl(given: string): URL {
  const expected = `${POSTGRES_URL_VARIABLE}: expected a postgres:// URL (postgres://user:password@host:port/database), got "${maskUrl(given)}"`;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new ProtocolError(`${expected}, which is not a URL`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new ProtocolError(`${expected}, a ${url.protocol} URL`);
  return url;
}

/** Where the URL says the server is: a host and port, or a socket folder (a host that is a path, as libpq and pg read it). */
function addressOf(url: URL): { host: string; port: string } {
  const host = decodeURIComponent(url.hostname).replace(/^\[(.*)\]$/, '$1') || url.searchParams.get('host') || 'localhost';
  return { host, port: url.port || url.searchParams.get('port') || DEFAULT_PORT };
}

/** Why nothing answers at the address, in words, or null when something does. */
function whyNoAnswer(host: string, port: string): string | null {
  const where = host.startsWith('/') ? `the socket ${host}/.s.PGSQL.${port}` : `${host}:${port}`;
  const attempt = spawnSync(process.execPath, ['-e', CONNECT_SOURCE, host, port], { encoding: 'utf8', timeout: ANSWER_TIMEOUT_MS, env: {} });
  if (attempt.status === 0) return null;
  if (attempt.error !== undefined || attempt.signal !== null) return `no answer from ${where} within ${ANSWER_TIMEOUT_MS / 1000} s`;
  const code = attempt.stdout.trim();
  if (code === 'ECONNREFUSED') return `connection refused at ${where} (ECONNREFUSED): nothing listens there`;
  if (code === 'ENOENT') return `no socket at ${where} (ENOENT): nothing listens there`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host ${host} was not found (${code})`;
  if (code === 'ETIMEDOUT') return `no answer from ${where} (ETIMEDOUT)`;
  return `cannot connect to ${where} (${code || `exit ${attempt.status}`})`;
}
