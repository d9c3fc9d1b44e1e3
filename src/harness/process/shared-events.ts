// A life's events file written by two: the agent, and killpoint playing its traffic (an agent run
// with --cassette: the interception loaded into a Node agent, agent-preload.ts, or the local
// endpoints that stand for its services, traffic-proxy.ts). The two share one numbering: an
// event's index is the number of lines the file holds before it, so each side knows the index of
// the event it writes without being told of the other's. The side that writes the event of the
// kill point kills the agent right after it, as the protocol asks of the agent itself.

import { appendFileSync, closeSync, existsSync, openSync, readSync } from 'node:fs';

/** How many lines (events) the file holds: the index of the next event. */
export function linesIn(path: string): number {
  if (!existsSync(path)) return 0;
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.alloc(64 * 1024);
    let lines = 0;
    for (let n = readSync(fd, chunk, 0, chunk.length, null); n > 0; n = readSync(fd, chunk, 0, chunk.length, null)) {
      for (let i = chunk.indexOf(10); i !== -1 && i < n; i = chunk.indexOf(10, i + 1)) lines++;
    }
    return lines;
  } finally {
    closeSync(fd);
  }
}

/**
 * Appends `event` as the next line of the events file, numbered by the lines before it; when its
 * index is the kill point, `kill` ends the agent right after (no handler, no flush). Returns the
 * index written, or null from the kill point on: the agent is dead, and nothing more is written or
 * done for it.
 */
export function sharedEventSink(path: string, killAfter: number | null, kill: () => void): (event: { kind: string; [field: string]: unknown }) => number | null {
  let killed = false;
  return (event) => {
    if (killed) return null;
    const index = linesIn(path);
    // One write(2) per line: the bytes are in the kernel before the kill.
    appendFileSync(path, `${JSON.stringify({ index, ...event })}\n`);
    if (index === killAfter) {
      killed = true;
      kill();
      return null;
    }
    return index;
  };
}
