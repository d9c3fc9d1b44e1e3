// The finding "done twice without any kill": an effect the run never killed makes again after one
// of its waits is answered, read from that run alone (every kill schedule is judged against it, so
// no kill finding shows it). Its broken variant, a graph that emails in the node that asks, is in
// test/langgraph-waits.test.ts; here, what counts and what does not.

import { expect, test } from 'vitest';
import type { RunEvent } from '../src/harness/check/events.js';
import type { CommittedWrite, RunOutcome } from '../src/harness/check/outcome.js';
import { repeatsWithoutKill, repeatWithoutKillTitle } from '../src/harness/check/repeat-without-kill.js';
// The kind of a wait recorded ('interrupt') is a shared kind, known once LangGraph's declarations load too.
import '../src/harness/engines/langgraph/event-kinds.js';

const write = (kind: string, target: string, args: unknown = {}): CommittedWrite => ({ kind, target, args: JSON.stringify(args), key: null });
const EMAIL = write('email', 'dana', { subject: 'we are looking at it' });
const REFUND = write('refund', 'A-17/L1', { amountCents: 4200 });

function event(index: number, kind: string, extra: Partial<RunEvent> = {}): RunEvent {
  return { index, kind, atMs: index, interval: 'other', ...extra };
}

/** A run never killed that waited at each of `waits` (with the effects done by then) and made `writes`. */
function run(waits: [string, number][], writes: CommittedWrite[], kills: number[] = []): RunOutcome {
  const events = waits.flatMap(([wait, effectsDone], i) => [event(2 * i, 'interrupt', { wait, effectsDone }), event(2 * i + 1, 'resume', { wait })]);
  const life = { events, end: 'finished' as const, killedAfter: null, error: null, errorKind: null };
  return { scenarioId: 't', strategy: 's', schedule: { kills, interleaving: [] }, lives: kills.length === 0 ? [life] : [life, life], picksTaken: [], pickWidths: [], delivered: [], writes, refusals: [], shop: {}, finalConversation: null };
}

test('an effect made before a wait and again after its answer is found, named by the step that asked, with both places', () => {
  const found = repeatsWithoutKill(run([['ask#1', 1]], [EMAIL, EMAIL, REFUND]));
  expect(found).toEqual([{ wait: 'ask#1', place: 'ask', write: EMAIL, first: 1, second: 2 }]);
  expect(repeatWithoutKillTitle(found[0]!)).toBe('done twice without any kill: ask runs again when resumed');
});

test('each wait is read on its own: the node that asks twice, emailing each time, is found at both waits', () => {
  const found = repeatsWithoutKill(run([['ask#1', 1], ['ask#2', 3]], [EMAIL, EMAIL, REFUND, EMAIL, EMAIL]));
  expect(found.map((r) => [r.wait, r.first, r.second])).toEqual([['ask#1', 1, 2], ['ask#2', 2, 4]]);
});

test('the same effect made again only after a later wait, with a wait between, is not this finding', () => {
  expect(repeatsWithoutKill(run([['ask#1', 1], ['ask#2', 2]], [EMAIL, REFUND, EMAIL]))).toEqual([]);
});

test('two equal effects in a run that never waits, or effects after a wait that differ, are not this finding', () => {
  expect(repeatsWithoutKill(run([], [EMAIL, EMAIL]))).toEqual([]);
  expect(repeatsWithoutKill(run([['ask#1', 1]], [EMAIL, REFUND, write('email', 'dana', { subject: 'refunded' })]))).toEqual([]);
});

test('only the run never killed is read: a run with kills has its own verdict', () => {
  expect(repeatsWithoutKill(run([['ask#1', 1]], [EMAIL, EMAIL], [5]))).toEqual([]);
});
