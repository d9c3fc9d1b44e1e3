// A life's requests when killpoint plays no traffic (no --cassette): they go to the real endpoints,
// untouched, but killpoint watches their fetch, so that an endpoint that does not answer is named
// the moment its first try fails (refused, not found, timed out) rather than hidden for minutes
// behind an SDK's retries with backoff (the OpenAI SDK, the AI SDK, LangChain's ChatOpenAI). The
// watch answers nothing and changes nothing: the request is the agent's own fetch, its answer or
// its error handed back as they are; only an error is noted, on its way back.
//
// The watch wraps fetch once per process, before the module and its packages load (an SDK client
// keeps the fetch it found when it was made), and notes only what a life asks (the async context
// `watchedLife` runs it in): killpoint's own requests, and the engine's own (its server, its
// world: `passThrough`), are never named. A life in a child says it on its stderr; the parent
// repeats such a line on its own (process/processes.ts), once. A request with no answer yet is
// what the life waits on, shown at a terminal (waiting.ts).

import { AsyncLocalStorage } from 'node:async_hooks';
import { keptUrl } from './secrets.js';
import { clearWaitingLine, waitEnded, waitStarted } from './waiting.js';

/** The start of the line that names an endpoint that did not answer: the parent repeats a child's. */
export const UNANSWERED_LINE_START = 'killpoint: no answer from ';

interface WatchedLife {
  /** Origins of the engine's own traffic: never named. */
  passThrough: readonly string[];
}

const watched = new AsyncLocalStorage<WatchedLife>();
let wrapped = false;
/** Names each watched request's wait apart. */
let requestsSoFar = 0;

/** Wraps this process's fetch (once), before a life's packages capture it. */
export function watchFetch(): void {
  if (wrapped || typeof globalThis.fetch !== 'function') return;
  wrapped = true;
  const fetchBefore = globalThis.fetch;
  globalThis.fetch = async function watchedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const life = watched.getStore();
    const url = urlOf(input);
    if (life === undefined || url === null || passesThrough(url, life.passThrough)) return fetchBefore(input, init);
    const key = `request ${(requestsSoFar += 1)}`;
    waitStarted(key, `${methodOf(input, init)} ${keptUrl(url)}`);
    try {
      return await fetchBefore(input, init);
    } catch (error) {
      sayUnanswered(unansweredLine(url, reasonOf(error)));
      throw error;
    } finally {
      waitEnded(key);
    }
  } as typeof fetch;
}

/** Runs `life` with its requests watched (the fetch wrapped first, if it is not yet). */
export function watchedLife<T>(passThrough: readonly string[], life: () => Promise<T>): Promise<T> {
  watchFetch();
  return watched.run({ passThrough }, life);
}

/** The one line: which URL did not answer, why, and what to do about the SDK's retries. */
export function unansweredLine(url: string, reason: string): string {
  return `${UNANSWERED_LINE_START}${keptUrl(url)} (${reason}): its SDK may retry it for minutes; Ctrl-C stops the check, or --cassette <file> records the traffic once it answers and replays it after`;
}

/** The lines said so far in this process: each endpoint is named once. */
const said = new Set<string>();

/** Says the line on stderr, once per process (clearing a progress line a terminal shows). */
export function sayUnanswered(line: string): void {
  if (said.has(line)) return;
  said.add(line);
  clearWaitingLine();
  process.stderr.write(`${process.stderr.isTTY === true ? '\r\x1b[K' : ''}${line}\n`);
}

function urlOf(input: RequestInfo | URL): string | null {
  try {
    return typeof input === 'string' ? new URL(input).href : input instanceof URL ? input.href : new URL(input.url).href;
  } catch {
    return null;
  }
}

function methodOf(input: RequestInfo | URL, init: RequestInit | undefined): string {
  return (init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET')).toUpperCase();
}

function passesThrough(url: string, origins: readonly string[]): boolean {
  const origin = new URL(url).origin;
  return origins.some((o) => new URL(o).origin === origin);
}

/** Why a request failed, in a few words: the system's code where there is one (ECONNREFUSED), or that it timed out. */
function reasonOf(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'AbortError' || e.name === 'TimeoutError') return 'no answer in time';
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}
