// Kill points by identity. An index ("event 57") names a moment only while the order of events is
// fixed; a real engine runs parallel steps in an order of its own, so the same moment can have
// another index from run to run. An event's identity names it by what it is: its kind, the call,
// step or model call it belongs to, and which occurrence of that it is in its life, e.g.
// `shop-commit[call_refund]`, `model-chunk[model 2 chunk 3]`, `journal-save#3` (the third save
// that belongs to no call), `answer-delivered`. Schedules, reports and corpus entries can name a
// kill point either way; the index stays the short form where the order is fixed.

import { engineEventKind } from './event-kinds.js';
import type { RunEvent } from './events.js';

/** What an event belongs to, in the words of its identity ('' for nothing in particular). */
function subjectOf(e: RunEvent): string {
  switch (e.kind) {
    case 'model-request':
    case 'model-reply':
      return `model ${e.modelCall}`;
    case 'model-chunk':
      return `model ${e.modelCall} chunk ${e.chunk}`;
  }
  // An engine's own kind says what its events belong to (a step, the calls a save records); the
  // rest belong to their call, if any.
  const declared = engineEventKind(e.kind);
  if (declared?.subject !== undefined) return declared.subject(e);
  return typeof e.callId === 'string' ? e.callId : '';
}

/** The identity of every event of a life, in order. */
export function eventIdentities(events: readonly RunEvent[]): string[] {
  const seen = new Map<string, number>();
  return events.map((e) => {
    const subject = subjectOf(e);
    const base = subject === '' ? e.kind : `${e.kind}[${subject}]`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}#${n}`;
  });
}

/** The identity of the kill point after event `index` of a life (-1: before its first event). */
export function killPointIdentity(events: readonly RunEvent[], index: number): string {
  if (index < 0) return 'start';
  return eventIdentities(events.slice(0, index + 1))[index] ?? `(no event ${index})`;
}

/** The index of the event with this identity in a life, or null when the life has none. */
export function findKillPoint(events: readonly RunEvent[], identity: string): number | null {
  if (identity === 'start') return -1;
  const index = eventIdentities(events).indexOf(identity);
  return index === -1 ? null : index;
}

/** A kill point as a schedule may give it: an index, or an identity. */
export type KillPointSpec = number | string;

/** Reads one kill point of a schedule: an integer >= -1 is an index, anything else an identity. */
export function parseKillPointSpec(text: string): KillPointSpec | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (/^-?\d+$/.test(trimmed)) {
    const n = Number(trimmed);
    return n >= -1 ? n : null;
  }
  return /^[a-z][a-z-]*(\[[^\]]*\])?(#\d+)?$|^start$/.test(trimmed) ? trimmed : null;
}

/** A kill point named by an identity that no event of its life has: bad input, not a verdict. */
export class UnknownKillPoint extends Error {
  constructor(identity: string, life: number, events: readonly RunEvent[]) {
    const known = eventIdentities(events);
    super(`kill point "${identity}": life ${life + 1} has no such event (it has ${known.length} events: ${known.slice(0, 12).join(', ')}${known.length > 12 ? ', ...' : ''})`);
    this.name = 'UnknownKillPoint';
  }
}
