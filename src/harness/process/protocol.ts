// The protocol between killpoint and a harness under test, in any language. killpoint starts the
// harness once per life, with these environment variables:
//
//   KILLPOINT_STATE_DIR  a folder that holds the run's durable state; the same for every life of a
//                        run. The harness keeps its stores there; killpoint reads two of them:
//                        shop.sqlite (a table write_log(kind, target, args, key), one row per
//                        committed write) and outbox.jsonl (one line {"runId", "text"} per answer
//                        delivered to the customer).
//   KILLPOINT_EVENTS     a file: the harness appends one JSON object per event, one line each,
//                        with at least "index" (0, 1, ... within the life) and "kind".
//   KILLPOINT_KILL_AFTER k: right after writing event k the harness sends itself SIGKILL
//                        (no handler, no finally, no flush). -1: before its first event. Absent:
//                        run to the end.
//   KILLPOINT_LIFE       0 for the first life, 1 for the first recovery, ...
//   KILLPOINT_RESULT     optional: on a clean end, the harness may write a JSON object here.
//   KILLPOINT_PROXY_<NAME>  with --cassette and --proxy NAME=URL: the base URL of a local endpoint
//                        that plays that upstream (traffic/traffic-proxy.ts). With --cassette,
//                        killpoint writes events into KILLPOINT_EVENTS too (its requests, the
//                        services' commits), so each event's index is the number of lines already
//                        in the file, and at a kill point of its own killpoint kills the agent
//                        (process/shared-events.ts).
//
// The exit status says how the life ended: killed by SIGKILL (the kill landed), 0 (finished), or
// EXIT_FAILED (it stopped on an error it reports on stderr, such as a journal it cannot read: a
// harness must never resume from garbage nor silently start over).
//
// A life is its process and everything it starts: when the process ends (or is killed at its time
// limit), whatever it started is killed too, in a session of its own as well, and its stderr is
// read only a short while longer. killpoint finds what a life started by a variable it sets in the
// life's environment, KILLPOINT_PROCESS_TREE, which the harness needs not read (src/harness/process/child-tree.ts).

import { appendFileSync, closeSync, existsSync, openSync, readSync } from 'node:fs';
import { MAX_EVENTS_PER_LIFE } from '../life-loop.js';
import { WAITING_LINE_START } from '../traffic/waiting.js';

export const ENV = {
  stateDir: 'KILLPOINT_STATE_DIR',
  events: 'KILLPOINT_EVENTS',
  killAfter: 'KILLPOINT_KILL_AFTER',
  life: 'KILLPOINT_LIFE',
  result: 'KILLPOINT_RESULT',
} as const;

/** Exit status of a life that stopped on an error it reported (not a crash of the harness). */
export const EXIT_FAILED = 3;

/** A harness that breaks the protocol, or cannot be run at all: bad input (exit 2), not a verdict. */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

export interface ProtocolEvent {
  index: number;
  kind: string;
  [field: string]: unknown;
}

/**
 * Reads a life's events file; a file the life never created holds no events. `life` names the
 * life in errors (the file lives in a temp folder that is gone by the time anyone reads them).
 */
/** An event line longer than this is not an event: a harness writing garbage, or its whole output on one line. */
export const MAX_EVENT_LINE_BYTES = 1024 * 1024;

/**
 * The events of a life, read line by line in chunks: a runaway harness can write an events file of
 * any size (one of 512 MB would not even fit in one JavaScript string), so it is never read whole;
 * past MAX_EVENTS_PER_LIFE events, or a line over MAX_EVENT_LINE_BYTES, reading stops with an
 * error naming the life and the line.
 */
export function readEvents(path: string, life: string): ProtocolEvent[] {
  if (!existsSync(path)) return [];
  const events: ProtocolEvent[] = [];
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.alloc(1024 * 1024);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let lineNumber = 0;
    const take = (bytes: Buffer): void => {
      lineNumber++;
      if (bytes.length === 0) return;
      if (bytes.length > MAX_EVENT_LINE_BYTES) throw new ProtocolError(`${life}: line ${lineNumber} of its events (${ENV.events}) is longer than ${MAX_EVENT_LINE_BYTES} bytes: not an event`);
      if (events.length >= MAX_EVENTS_PER_LIFE) throw new ProtocolError(`${life}: more than ${MAX_EVENTS_PER_LIFE} events in ${ENV.events} (line ${lineNumber}): a runaway loop, not a run to compare`);
      const line = bytes.toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (error) {
        throw new ProtocolError(`${life}: line ${lineNumber} of its events (${ENV.events}) is not JSON (${(error as Error).message})`);
      }
      const e = parsed as Partial<ProtocolEvent>;
      if (typeof e !== 'object' || e === null || e.index !== events.length || typeof e.kind !== 'string') {
        throw new ProtocolError(`${life}: line ${lineNumber} of its events (${ENV.events}): expected {"index": ${events.length}, "kind": string, ...}`);
      }
      events.push(e as ProtocolEvent);
    };
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      let from = 0;
      for (let nl = chunk.indexOf(10, from); nl !== -1 && nl < n; nl = chunk.indexOf(10, from)) {
        const piece = chunk.subarray(from, nl);
        take(pending.length === 0 ? piece : Buffer.concat([...pending, piece]));
        pending = [];
        pendingBytes = 0;
        from = nl + 1;
      }
      if (from < n) {
        pendingBytes += n - from;
        if (pendingBytes > MAX_EVENT_LINE_BYTES) throw new ProtocolError(`${life}: line ${lineNumber + 1} of its events (${ENV.events}) is longer than ${MAX_EVENT_LINE_BYTES} bytes: not an event`);
        pending.push(Buffer.from(chunk.subarray(from, n)));
      }
    }
    if (pending.length > 0) take(Buffer.concat(pending));
  } finally {
    closeSync(fd);
  }
  return events;
}

export interface LifeExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/**
 * How a life ended, decided in one place for every harness: 'killed' when SIGKILL landed right
 * after its kill point, 'finished' on exit 0, 'failed' on EXIT_FAILED. Killed elsewhere than its
 * kill point, or alive after it (more events than the kill point allows, or an exit of its own
 * having reached it; at -1, any exit of its own) breaks the protocol. A crash (any other exit)
 * breaks it too where the child is killpoint's own; for an agent under test (`crashes: 'verdict'`)
 * it is 'crashed': the most common recovery bug, judged like any other.
 */
export function lifeEnd(exit: LifeExit, eventCount: number, killAfter: number | null, life: string, crashes: 'error' | 'verdict' = 'error'): 'killed' | 'finished' | 'failed' | 'crashed' {
  const last = eventCount - 1;
  const badInput = 'a harness that breaks the protocol is bad input';
  if (exit.signal === 'SIGKILL') {
    if (killAfter === null || last !== killAfter) {
      throw new ProtocolError(`${life}: killed by SIGKILL after event ${last}, but its kill point was ${killAfter ?? 'none'}; ${badInput}${errorLine(exit.stderr)}`);
    }
    return 'killed';
  }
  if (killAfter !== null && last >= killAfter) {
    const how = exit.code !== null ? `exited ${exit.code}` : `ended by ${exit.signal}`;
    const point = killAfter === -1 ? 'before its first event' : `after event ${killAfter}`;
    throw new ProtocolError(`${life}: the harness did not kill itself ${point} (${ENV.killAfter}=${killAfter}): it wrote ${eventCount} event${eventCount === 1 ? '' : 's'} and ${how}; ${badInput}`);
  }
  if (exit.code === 0) return 'finished';
  if (exit.code === EXIT_FAILED) return 'failed';
  if (crashes === 'verdict') return 'crashed';
  throw new ProtocolError(`${life}: the harness crashed (exit ${exit.code ?? exit.signal}); ${badInput}${errorLine(exit.stderr)}`);
}

/**
 * The line of a child's stderr that names its error, to keep our error on one line: the last one
 * neither indented (a stack frame) nor Node's version footer, which is where Python and Node put it.
 */
export function errorLine(stderr: string): string {
  // A life's lines saying what it waits on are for the person at the terminal, never its error.
  const line = stderr.split('\n').filter((l) => l.trim() !== '' && !/^\s/.test(l) && !/^Node\.js v/.test(l) && !l.startsWith(WAITING_LINE_START)).at(-1);
  return line ? `: ${line.trim()}` : '';
}

/** The harness side in TypeScript: append the event, then die if it is the kill point. */
export class EventSink {
  constructor(
    private readonly path: string,
    private readonly killAfter: number | null,
  ) {}

  static fromEnv(env: NodeJS.ProcessEnv = process.env): EventSink {
    const path = env[ENV.events];
    if (!path) throw new Error(`${ENV.events}: expected the path of the events file`);
    const raw = env[ENV.killAfter];
    const killAfter = raw === undefined || raw === '' ? null : Number(raw);
    if (killAfter !== null && !(Number.isInteger(killAfter) && killAfter >= -1)) throw new Error(`${ENV.killAfter}: expected an integer >= -1, got ${raw}`);
    return new EventSink(path, killAfter);
  }

  /** Dies at once when the kill point is -1 (before anything). */
  start(): void {
    if (this.killAfter === -1) die();
  }

  emit(event: ProtocolEvent): void {
    // One write(2) per line: the bytes are in the kernel before the kill, so SIGKILL cannot lose them.
    appendFileSync(this.path, `${JSON.stringify(event)}\n`);
    if (event.index === this.killAfter) die();
  }
}

function die(): never {
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL cannot be caught; this line only satisfies the type of the function.
  throw new Error('unreachable: still alive after SIGKILL');
}
