// The properties the fast-check suites hold every system to, by the name a corpus entry records.
// A property is a named set of the checks in checks.ts (fails when one of them fails), or, for the
// two that relate a run to something beyond its own verdict, a relation of its own: a repeat
// happens exactly when a kill lands in a gap, and the same case run twice gives the same run.
// Each returns the problem found, null when it holds; the reporter explains the case itself.

import type { JudgedCase } from './explore.js';
import type { RunEvent } from '../check/events.js';
import { CHECK_LABELS, failedChecks, unsentWrites, type CheckName } from '../check/checks.js';
import { runSchedule } from '../session.js';

export type Property = (j: JudgedCase) => string | null;

/** The property that holds when none of these checks fails. */
function checksHold(checks: readonly CheckName[]): Property {
  return (j) => {
    const failed = failedChecks(j).filter((c) => checks.includes(c));
    return failed.length === 0 ? null : `fails: ${failed.map((c) => CHECK_LABELS[c]).join(', ')}`;
  };
}

/** With keys: every write exactly once, the shop and the answer as in the baseline, a valid conversation. */
export const exactlyOnce: Property = checksHold(['done-twice', 'lost-write', 'refused-repeat', 'different-write', 'shop-differs', 'different-answer', 'invalid-conversation']);

/** Every resumed conversation is one a model API accepts, and the journal could be read back. */
export const conversationValid: Property = checksHold(['invalid-conversation']);

/** No partial answer is delivered, stored in the conversation that survives, or acted on; the answer is delivered once. */
export const noPartialAnswer: Property = checksHold(['half-answer', 'answer-twice']);

/**
 * The write calls a kill left in their gap: committed in that life, but no save recording the
 * result happened before the kill. A journal records a result with the first save (temp written
 * after the result reached the conversation, then renamed) that follows it; a save of another
 * parallel call counts, as it writes the whole conversation. A workflow records it with its step.
 */
export function callsKilledInTheirGap(j: JudgedCase): Set<string> {
  const inGap = new Set<string>();
  for (const life of j.outcome.lives) {
    if (life.end !== 'killed') continue;
    const events = life.events.slice(0, life.killedAfter! + 1);
    for (const commit of events.filter((e) => e.kind === 'shop-commit')) {
      if (!recordedBefore(events, commit)) inGap.add(commit.callId!);
    }
  }
  return inGap;
}

function recordedBefore(events: RunEvent[], commit: RunEvent): boolean {
  const after = events.slice(commit.index + 1);
  if (after.some((e) => e.kind === 'step-recorded' && e.callId === commit.callId)) return true;
  const result = after.findIndex((e) => e.kind === 'tool-result' && e.callId === commit.callId);
  if (result === -1) return false;
  const write = after.findIndex((e, i) => i > result && e.kind === 'journal-write');
  return write !== -1 && after.some((e, i) => i > write && e.kind === 'journal-save');
}

/** Write calls sent again in a later life after they committed. */
export function repeatedCalls(j: JudgedCase): Set<string> {
  const committed = new Set<string>();
  const repeated = new Set<string>();
  for (const life of j.outcome.lives) {
    const here: string[] = [];
    for (const e of life.events) {
      if (e.kind === 'tool-start' && committed.has(e.callId!)) repeated.add(e.callId!);
      if (e.kind === 'shop-commit') here.push(e.callId!);
    }
    for (const id of here) committed.add(id);
  }
  return repeated;
}

/**
 * Without keys: a write is repeated if and only if a kill lands in its gap; and none is lost (left
 * unsent). A repeat may make a later write fail (nothing left to refund): that is the repeat's
 * doing, so it is not counted as lost.
 */
export function repeatIffGap(j: JudgedCase): string | null {
  const gap = [...callsKilledInTheirGap(j)].sort();
  const repeated = [...repeatedCalls(j)].sort();
  if (gap.join(',') !== repeated.join(',')) return `killed in the gap of [${gap.join(', ')}], but repeated [${repeated.join(', ')}]`;
  const unsent = unsentWrites(j);
  if (unsent.length > 0) return `never sent, though the baseline committed: ${unsent.join('; ')}`;
  return null;
}

/** The same inputs give the same events, shop, logs and answers. */
export function deterministic(j: JudgedCase): string | null {
  const again = runSchedule(j.system, j.scenario, j.schedule);
  if (again instanceof Promise) {
    again.catch(() => undefined);
    return null; // a process tier is compared by the differential check, not here
  }
  return JSON.stringify(j.outcome) === JSON.stringify(again) ? null : 'two runs of the same case differ';
}

/** The properties by the name a corpus entry records, so a replay can check the one it broke. */
export const PROPERTIES: Record<string, Property> = {
  'keys: exactly once': exactlyOnce,
  'no keys: repeat iff gap': repeatIffGap,
  'resumed conversation valid': conversationValid,
  'no partial answer': noPartialAnswer,
  deterministic,
};
