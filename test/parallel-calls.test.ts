// Two tool calls asked for at once, killed after the first result is saved and before the second:
// the chapter's bug that no chosen kill point would have found.

import { describe, expect, it } from 'vitest';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { lanternScenario } from '../src/model/load.js';
import { baselineOf, killAndJudge } from './helpers.js';

const ivan = lanternScenario('T03');

function afterFirstParallelResultSaved(strategy: 'journal+keys' | 'journal+keys/last-message'): number {
  const events = baselineOf(ivan, strategy).lives[0]!.events;
  const starts = events.filter((e) => e.kind === 'tool-start');
  // The first batch of two calls: both start before either finishes.
  const batch = starts.find((s, i) => starts[i + 1] !== undefined && starts[i + 1]!.index === s.index + 1)!;
  return events.find((e) => e.kind === 'journal-save' && e.callId === batch.callId)!.index;
}

describe('a resume between two parallel tool calls', () => {
  it('the default interleaving starts both calls, then finishes them in call order', () => {
    const kinds = baselineOf(ivan, 'journal+keys').lives[0]!.events.filter((e) => e.callId?.startsWith('call_get-orders')).map((e) => `${e.kind} ${e.callId}`);
    expect(kinds).toEqual([
      'tool-start call_get-orders_1',
      'tool-start call_get-orders_2',
      'tool-result call_get-orders_1',
      'journal-write call_get-orders_1',
      'journal-save call_get-orders_1',
      'tool-result call_get-orders_2',
      'journal-write call_get-orders_2',
      'journal-save call_get-orders_2',
    ]);
  });

  it('looking for unanswered calls only in the last message sends a conversation the validator rejects', () => {
    const kill = afterFirstParallelResultSaved('journal+keys/last-message');
    const verdict = killAndJudge(ivan, 'journal+keys/last-message', [kill]);
    expect(verdict.conversationValid).toBe(false);
    expect(verdict.conversationProblem).toMatch(/tool call call_get-orders_2 has no result/);
    expect(verdict.answer).toBeNull();
    expect(verdict.sameAnswer).toBe(false);
  });

  it('the correct resume runs the missing call and matches the baseline', () => {
    const kill = afterFirstParallelResultSaved('journal+keys');
    const outcome = simulate(ivan, 'journal+keys', { kills: [kill], interleaving: [] });
    const rerun = outcome.lives[1]!.events.filter((e) => e.kind === 'tool-start').map((e) => e.callId);
    expect(rerun[0]).toBe('call_get-orders_2');
    const verdict = killAndJudge(ivan, 'journal+keys', [kill]);
    expect(verdict).toMatchObject({ conversationValid: true, sameAnswer: true, extraWrites: 0, shopDiff: [], modelCallsRedone: 0 });
  });

  it('another interleaving (the second call finishes first) is replayed exactly from its picks', () => {
    const picks = [0, 1, 1, 1, 1];
    const first = simulate(ivan, 'journal', { kills: [], interleaving: picks });
    const again = simulate(ivan, 'journal', { kills: [], interleaving: first.picksTaken });
    expect(again.lives).toEqual(first.lives);
    const order = first.lives[0]!.events.filter((e) => e.kind === 'tool-result' && e.callId?.startsWith('call_get-orders')).map((e) => e.callId);
    expect(order).toEqual(['call_get-orders_2', 'call_get-orders_1']);
  });
});
