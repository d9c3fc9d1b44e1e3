// The properties, as functions from a judged kill-and-resume case to the problem found (null when
// the property holds). Each properties/*.test.ts file checks one of them over generated agents; the
// broken-variants test checks that each can fail; corpus entries name the one they keep a case of.

import type { JudgedCase } from '../search/explore.js';
import type { RunEvent } from './events.js';
import { unsentWrites } from './promises.js';
import { differences } from '../cli/report.js';
import { simulate } from '../engines/scripted/simulate.js';

/** With keys: every write exactly once, the shop and the answer as in the baseline, a valid conversation. */
export function exactlyOnce(j: JudgedCase): string | null {
  const v = j.verdict;
  const wrong = v.doneTwice.length + v.lostWrites.length + v.differentWrites.length + v.refusedTotal + v.shopDiff.length > 0;
  if (wrong || !v.sameAnswer || !v.conversationValid || v.recoveryError !== null) return differences(v).join('; ');
  return null;
}

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

/** Every resumed conversation is one a model API accepts, and the journal could be read back. */
export function conversationValid(j: JudgedCase): string | null {
  if (j.verdict.conversationProblem !== null) return `invalid conversation: ${j.verdict.conversationProblem}`;
  if (j.verdict.recoveryError !== null) return j.verdict.recoveryError;
  return null;
}

/** No partial answer is delivered, stored in the conversation that survives, or acted on. */
export function noPartialAnswer(j: JudgedCase): string | null {
  const answers = new Set([...j.scenario.steps.values()].flatMap((s) => (s.kind === 'answer' ? [s.text] : [])));
  if (j.verdict.partialAnswerDelivered) return `a partial answer was delivered: ${JSON.stringify(j.outcome.delivered)}`;
  if (j.outcome.delivered.length > 1) return `the answer was delivered ${j.outcome.delivered.length} times`;
  for (const m of j.outcome.finalConversation ?? []) {
    if (m.role !== 'assistant') continue;
    if (m.toolCalls.length === 0 && !answers.has(m.content)) return `the conversation holds a partial answer: ${JSON.stringify(m.content)}`;
    if (m.toolCalls.length > 0 && m.content !== '') return `a tool-call reply holds text: ${JSON.stringify(m.content)}`;
  }
  // Acted on: a tool starts only for a call of a reply the model completed in some life, or one
  // the resumed conversation holds (it was saved only after its reply completed).
  const known = new Set([...j.scenario.steps.values()].flatMap((s) => (s.kind === 'calls' ? s.calls.map((c) => c.id) : [])));
  for (const life of j.outcome.lives) {
    for (const e of life.events) if (e.kind === 'tool-start' && !known.has(e.callId!)) return `a tool started for an unknown call ${e.callId}`;
  }
  return null;
}

/** The same inputs give the same events, shop, logs and answers. */
export function deterministic(j: JudgedCase): string | null {
  const again = simulate(j.scenario, j.strategy, j.schedule);
  const a = JSON.stringify(j.outcome);
  const b = JSON.stringify(again);
  return a === b ? null : 'two runs of the same case differ';
}

/** The properties by the name a corpus entry records, so a replay can check the one it broke. */
export const PROPERTIES: Record<string, (j: JudgedCase) => string | null> = {
  'keys: exactly once': exactlyOnce,
  'no keys: repeat iff gap': repeatIffGap,
  'resumed conversation valid': conversationValid,
  'no partial answer': noPartialAnswer,
  deterministic,
};
