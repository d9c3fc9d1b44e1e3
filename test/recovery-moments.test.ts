// Kills at the chapter's other moments, and at the edges of a run.

import { describe, expect, it } from 'vitest';
import { STRATEGY_NAMES } from '../src/harness/engines/scripted/strategies.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { lanternScenario } from '../src/model/load.js';
import { baselineOf, halfwayThroughAnswer, killAndJudge } from './helpers.js';

const dana = lanternScenario('T01');

describe('killed halfway through streaming the final answer', () => {
  it.each(['journal', 'journal+keys', 'workflow', 'workflow+keys'] as const)('%s redoes exactly one model call and gives the same answer', (strategy) => {
    const verdict = killAndJudge(dana, strategy, [halfwayThroughAnswer(dana, strategy)]);
    expect(verdict.modelCallsRedone).toBe(1);
    expect(verdict.sameAnswer).toBe(true);
    expect(verdict.extraWrites).toBe(0);
    expect(verdict.answerRestarts).toBe(1);
    expect(verdict.answersDelivered).toBe(1);
    expect(verdict.partialAnswerDelivered).toBe(false);
  });

  it('restart redoes every model call of the task, the refund included', () => {
    const verdict = killAndJudge(dana, 'restart', [halfwayThroughAnswer(dana, 'restart')]);
    expect(verdict.modelCallsRedone).toBe(6);
    expect(verdict.doneTwice).toHaveLength(1);
  });
});

describe('the edges of a run', () => {
  it.each(STRATEGY_NAMES)('%s: the same task run twice gives identical event lists', (strategy) => {
    expect(baselineOf(dana, strategy)).toEqual(baselineOf(dana, strategy));
  });

  it.each(STRATEGY_NAMES)('%s: a kill before the first event behaves like the baseline', (strategy) => {
    const verdict = killAndJudge(dana, strategy, [-1]);
    expect(verdict).toMatchObject({ extraWrites: 0, lostWrites: [], shopDiff: [], sameAnswer: true, modelCallsRedone: 0, conversationValid: true });
  });

  it.each(STRATEGY_NAMES)('%s: a kill after the last event behaves like the baseline', (strategy) => {
    const last = baselineOf(dana, strategy).lives[0]!.events.length - 1;
    const outcome = simulate(dana, strategy, { kills: [last], interleaving: [] });
    expect(outcome.lives.map((l) => l.events.length)).toEqual([last + 1, 0]);
    const verdict = killAndJudge(dana, strategy, [last]);
    expect(verdict).toMatchObject({ extraWrites: 0, lostWrites: [], shopDiff: [], sameAnswer: true, modelCallsRedone: 0, answersDelivered: 1 });
  });

  it('a kill point past the end of a life is never reached: the life finishes', () => {
    const outcome = simulate(dana, 'journal', { kills: [10_000], interleaving: [] });
    expect(outcome.lives).toHaveLength(1);
    expect(outcome.lives[0]!.end).toBe('finished');
  });
});

describe('virtual time', () => {
  it("Dana's run lasts about the chapter's 2.1 s, most of it waiting on the model or a tool", () => {
    const events = baselineOf(dana, 'journal').lives[0]!.events;
    const durationMs = events.at(-1)!.atMs;
    expect(durationMs).toBeGreaterThan(1800);
    expect(durationMs).toBeLessThan(2400);
    let waitingMs = 0;
    for (const [i, e] of events.entries()) {
      if (['model', 'tool', 'write-before-commit'].includes(e.interval)) waitingMs += e.atMs - (i === 0 ? 0 : events[i - 1]!.atMs);
    }
    expect(waitingMs / durationMs).toBeGreaterThan(0.9);
  });

  it('the gap from the refund commit to the saved journal is the scenario gap, 0.13 ms', () => {
    const events = baselineOf(dana, 'journal').lives[0]!.events;
    const commit = events.find((e) => e.kind === 'shop-commit')!;
    const saved = events.find((e) => e.index > commit.index && e.kind === 'journal-save')!;
    expect(saved.atMs - commit.atMs).toBeCloseTo(0.13, 10);
  });
});
