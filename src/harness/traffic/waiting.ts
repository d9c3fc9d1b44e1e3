// What the lives wait on, for a person at a terminal: a request of a life's that has had no answer
// for a while (unanswered.ts) is shown in a line rewritten in place, `killpoint: waiting on POST
// https://api.openai.com/v1/chat/completions (12 s)`, the longest wait first, and cleared once
// nothing waits. Only where a progress line would be (progress-wanted.ts: a terminal, or
// KILLPOINT_PROGRESS=1), so that logs and --json stay as they are. A life in a child says what it
// waits on in a line of its stderr (its oldest wait, or none), which the parent shows as its own
// (process/processes.ts).

import { wantsProgress } from '../progress-wanted.js';

/** The start of a child's line saying what it waits on: JSON after it, a request or null. */
export const WAITING_LINE_START = 'killpoint: waiting on ';

/** A wait shorter than this is an answer on its way, not worth a line. */
const SHOWN_AFTER_MS = 2000;
const REDRAW_MS = 1000;

const waits = new Map<string, { what: string; sinceMs: number }>();
let inChild = false;
let toldParent: string | null = null;
let timer: NodeJS.Timeout | undefined;
let shown = false;
let stopped = false;
let hidden = false;

/** In a life's child: its waits are told to the parent, which shows them. */
export function tellWaitsToParent(): void {
  inChild = true;
}

/** `key` waits on `what` (a request: its method and URL). */
export function waitStarted(key: string, what: string): void {
  waits.set(key, { what, sinceMs: performance.now() });
  changed();
}

export function waitEnded(key: string): void {
  if (waits.delete(key)) changed();
}

/** A child's line read back: what it waits on now (null: nothing). */
export function childWaits(child: string, line: string): void {
  let what: unknown;
  try {
    what = JSON.parse(line.slice(WAITING_LINE_START.length));
  } catch {
    return;
  }
  if (typeof what === 'string') {
    if (waits.get(child)?.what !== what) waitStarted(child, what);
  } else waitEnded(child);
}

/** Whether waits are shown at all: a check whose stdout is --json shows no progress line, and no wait either. */
export function showWaits(enabled: boolean): void {
  hidden = !enabled;
}

/** The run is over (interrupted): the line is cleared and never drawn again. */
export function stopShowingWaits(): void {
  waits.clear();
  changed();
  stopped = true;
}

/** Clears the line shown, before another line is written (the next redraw shows it again). */
export function clearWaitingLine(): void {
  if (shown) process.stderr.write('\r\x1b[K');
  shown = false;
}

function oldest(): { what: string; sinceMs: number } | null {
  let found: { what: string; sinceMs: number } | null = null;
  for (const w of waits.values()) if (found === null || w.sinceMs < found.sinceMs) found = w;
  return found;
}

function changed(): void {
  if (inChild) {
    const now = oldest()?.what ?? null;
    if (now !== toldParent) process.stderr.write(`${WAITING_LINE_START}${JSON.stringify(now)}\n`);
    toldParent = now;
    return;
  }
  if (hidden || !wantsProgress()) return;
  if (waits.size > 0 && timer === undefined) {
    timer = setInterval(draw, REDRAW_MS);
    // A line on a terminal never keeps the process alive.
    timer.unref();
  }
  if (waits.size === 0) {
    clearInterval(timer);
    timer = undefined;
    clearWaitingLine();
  }
}

function draw(): void {
  const w = oldest();
  if (w === null || stopped) return;
  const waitedMs = performance.now() - w.sinceMs;
  if (waitedMs < SHOWN_AFTER_MS) return;
  process.stderr.write(`\r${WAITING_LINE_START}${w.what} (${Math.round(waitedMs / 1000)} s)\x1b[K`);
  shown = true;
}
