// The run never killed is the yardstick of every kill point, so an agent behind the kill protocol
// must repeat it, as a user's module must (user-module/repeat.ts): its session runs it twice, one
// after the other, each from an empty state folder. An agent that keeps its durable state outside
// KILLPOINT_STATE_DIR (a journal under ~) finds in the second run what the first left there and does
// something else (resumes a finished task, skips the refund); left unrefused, every killed run would
// share that journal too, and a pass would mean nothing. Two runs that differ are bad input, named by
// what differs first and by the files the runs wrote outside the folder (outside-state.ts).

import { canonicalJson } from '../../../model/canonical-json.js';
import type { RunEvent } from '../../check/events.js';
import { describeEvent } from '../../check/event-kinds.js';
import type { RunOutcome } from '../../check/outcome.js';
import { ENV, ProtocolError } from '../../process/protocol.js';
import { filesBesideState, snapshotHome, writtenBetween } from './outside-state.js';

/** Runs the harness with no kill; `besideState` hears of each state folder before it goes. */
export type RunNeverKilled = (besideState: (stateDir: string) => void) => Promise<RunOutcome>;

/** How many files written outside the state folder a refusal names at most. */
const NAMED_FILES = 3;

/**
 * The run never killed, run twice from empty state folders; the first is the yardstick. A first
 * run that does not finish is returned as it is (the explorer reports it); one whose repeat differs
 * is refused (ProtocolError, exit 2) with the first difference and the files written outside.
 */
export async function runNeverKilledTwice(name: string, run: RunNeverKilled): Promise<RunOutcome> {
  const home = snapshotHome();
  const beside = new Set<string>();
  const seeBeside = (stateDir: string): void => filesBesideState(stateDir).forEach((f) => beside.add(f));
  const first = await run(seeBeside);
  if (first.lives[0]?.end !== 'finished') return first;
  const difference = await secondDiffers(name, first, () => run(seeBeside));
  if (difference === null) return first;
  const after = home === null ? null : snapshotHome();
  const outside = [...beside, ...(home === null || after === null ? [] : writtenBetween(home, after))];
  throw new ProtocolError(`${name}: two runs never killed, each from an empty ${ENV.stateDir}, differ ${difference}; ${outsideText(outside)}\n  replay: npx killpoint harness -- ${name}`);
}

/**
 * How the second run differs from the first. One refused for breaking the protocol where the first
 * was not (an agent that resumes a finished journal may leave no shop, or no answer) differs by that.
 */
async function secondDiffers(name: string, first: RunOutcome, runSecond: () => Promise<RunOutcome>): Promise<string | null> {
  try {
    return firstDifference(first, await runSecond());
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    return `in how they ended: the first finished, the second was refused (${error.message.replace(`${name}: `, '')})`;
  }
}

/** What the second run did otherwise than the first, first by events, then by how it ended, its writes and its answer; null when nothing. */
export function firstDifference(first: RunOutcome, second: RunOutcome): string | null {
  const a = first.lives[0]?.events ?? [];
  const b = second.lives[0]?.events ?? [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined || !sameStep(x, y)) return `at event ${i}: ${eventText(x)} in the first, ${eventText(y)} in the second`;
  }
  const ends = [first, second].map((o) => o.lives[0]?.error ?? o.lives[0]?.end ?? 'no life');
  if (ends[0] !== ends[1]) return `in how they ended: ${ends[0]} in the first, ${ends[1]} in the second`;
  const writes = (o: RunOutcome) => o.writes.map((w) => `${w.kind} ${w.target} ${w.args}`);
  const [wa, wb] = [writes(first), writes(second)];
  for (let i = 0; i < Math.max(wa.length, wb.length); i++) {
    if (wa[i] !== wb[i]) return `at write ${i}: ${wa[i] ?? '(none)'} in the first, ${wb[i] ?? '(none)'} in the second`;
  }
  if (canonicalJson(first.delivered) !== canonicalJson(second.delivered)) return `in their answer: ${JSON.stringify(first.delivered[0] ?? null)} and ${JSON.stringify(second.delivered[0] ?? null)}`;
  return null;
}

/**
 * Two events record the same step of the agent: the same kind and fields. Two fields are of the
 * moment, not of the path: when it happened (atMs), and the key of a write, which an agent may make
 * afresh in each run (a key that then changes between a write and its repeat is the verdict's
 * finding, not a different path).
 */
export function sameStep(a: RunEvent, b: RunEvent): boolean {
  const step = ({ atMs: _atMs, key: _key, ...fields }: RunEvent & { key?: unknown }): string => canonicalJson(fields);
  return step(a) === step(b);
}

function eventText(event: RunEvent | undefined): string {
  return event === undefined ? '(none)' : `"${describeEvent(event)}"`;
}

/** The files named, and what to do; with none found, what may make two runs differ. */
function outsideText(files: readonly string[]): string {
  if (files.length === 0) {
    return `an agent that keeps durable state outside ${ENV.stateDir} (a journal under ~, say) or whose runs differ (the clock, random numbers) cannot be judged at a kill point`;
  }
  const more = files.length > NAMED_FILES ? ` and ${files.length - NAMED_FILES} more` : '';
  return `the agent wrote ${files.slice(0, NAMED_FILES).join(', ')}${more}, outside ${ENV.stateDir}: keep its durable state in that folder, and remove what it left there (a later run would resume from it)`;
}
